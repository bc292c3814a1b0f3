#!/usr/bin/env bash
# CI: snakemake --profile profiles/slurm on a real SLURM. Installs Debian's SLURM (+ munge, slurmdbd,
# MariaDB), starts a single-node cluster on 127.0.0.1 whose node advertises a fake GPU, runs
# tests/slurm (local reference run, SLURM runs with a scancel'ed job, sacct checks), prints what
# SLURM recorded, and stops the daemons whatever happens.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
[[ -x $PY ]] || PY=python3
t0=$SECONDS
bash .ci/slurm/cluster.sh install
on_exit() {
    local rc=$?
    if [[ $rc != 0 ]]; then  # the daemons' own words, for a failed CI log
        for f in "${LRWORLD_SLURM_DIR:-/tmp/lrworld-slurm}"/log/{slurmctld,slurmd,slurmdbd}.log; do
            [[ -f $f ]] && { echo "--- tail $f"; tail -n 30 "$f"; }
        done
    fi
    bash .ci/slurm/cluster.sh stop
    exit $rc
}
trap on_exit EXIT
bash .ci/slurm/cluster.sh start
# Its own pytest base directory: SLURM jobs run in it, and a shared pytest-of-<user> is pruned by
# other pytest sessions on the same machine.
BASETEMP=${LRWORLD_SLURM_DIR:-/tmp/lrworld-slurm}-pytest
LRWORLD_SLURM_REQUIRED=1 "$PY" -m pytest tests/slurm -v -s -p no:cacheprovider --basetemp "$BASETEMP"
echo "SLURM jobs of this CI run (sacct):"
sacct -X -o JobID,Partition%6,State%12,Elapsed,ReqTRES%60,Comment%62
echo "SLURM integration test: $((SECONDS - t0)) s"
