#!/usr/bin/env bash
# A single-node SLURM cluster on 127.0.0.1 for CI: munge, MariaDB + slurmdbd (accounting, so that
# sacct works as on a real site), slurmctld and slurmd. The node advertises one fake GPU
# (gres gpu:fake:1 backed by /dev/null), so GPU jobs are scheduled on a CPU-only machine.
#
#   .ci/slurm/cluster.sh install   # Debian packages (root)
#   .ci/slurm/cluster.sh start     # writes $LRWORLD_SLURM_DIR/slurm.conf, starts the daemons
#   .ci/slurm/cluster.sh stop      # stops exactly the daemons started here (pid files)
#
# The config is written under $LRWORLD_SLURM_DIR and linked into /etc/slurm, where every client
# finds it as on a real site (the plugin's job step drops SLURM_* variables such as SLURM_CONF
# before its inner srun). An /etc/slurm/slurm.conf that is not ours is never touched.
set -euo pipefail

DIR=${LRWORLD_SLURM_DIR:-/tmp/lrworld-slurm}
HOST=$(hostname -s)
CLUSTER=lrworld
# CPUs the node advertises: at least 4, so that a group job of 3 tiny jobs (3 CPUs) fits on a
# 2-core CI machine (SlurmdParameters=config_overrides, below, allows advertising more).
CPUS=$(( $(nproc) > 4 ? $(nproc) : 4 ))
# Memory the node advertises. Nothing enforces it here (no cgroups): it only has to hold the
# largest requests (the SLURM test's retried large model: 51200 MB); SlurmdParameters=config_overrides keeps slurmd from
# draining the node when the machine has less.
MEM_MB=${LRWORLD_SLURM_MEM_MB:-64000}
DB_PORT=${LRWORLD_SLURM_DB_PORT:-3307}
CTLD_PORT=${LRWORLD_SLURM_CTLD_PORT:-6817}
SLURMD_PORT=${LRWORLD_SLURM_SLURMD_PORT:-6818}
DBD_PORT=${LRWORLD_SLURM_DBD_PORT:-6819}
log() { echo "[slurm-ci $(date -u +%H:%M:%S)] $*"; }

install() {
    if command -v sbatch >/dev/null && command -v slurmctld >/dev/null && command -v slurmdbd >/dev/null \
        && command -v mariadbd >/dev/null && command -v munged >/dev/null; then
        log "SLURM already installed: $(dpkg-query -W -f '${Version}' slurm-client)"
        return
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends slurm-wlm slurmctld slurmd slurm-client slurmdbd \
        munge mariadb-server >/dev/null
    log "installed SLURM $(dpkg-query -W -f '${Version}' slurm-client)"
}

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
    local n=$1 what=$2; shift 2
    for _ in $(seq "$n"); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 1
    done
    log "timed out waiting for $what"; return 1
}

write_conf() {
    mkdir -p "$DIR"/{etc,log,run,spool/ctld,spool/d,db,jobcomp}
    cat > "$DIR/etc/slurm.conf" <<CONF
ClusterName=$CLUSTER
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=300
SchedulerType=sched/backfill
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
StateSaveLocation=$DIR/spool/ctld
SlurmdSpoolDir=$DIR/spool/d
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$DBD_PORT
AccountingStorageTRES=gres/gpu,gres/gpu:fake
AccountingStoreFlags=job_comment,job_script
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB Gres=gpu:fake:1 State=UNKNOWN
# Two partitions, as on a site: 'cpu' (default) and 'gpu', on the same node here.
PartitionName=cpu Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=$HOST Default=NO MaxTime=INFINITE State=UP
CONF
    cat > "$DIR/etc/gres.conf" <<CONF
NodeName=$HOST Name=gpu Type=fake File=/dev/null
CONF
    cat > "$DIR/etc/slurmdbd.conf" <<CONF
AuthType=auth/munge
DbdHost=$HOST
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=root
PidFile=$DIR/run/slurmdbd.pid
LogFile=$DIR/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=slurm
StorageLoc=slurm_acct_db
CONF
    chmod 600 "$DIR/etc/slurmdbd.conf"
    mkdir -p /etc/slurm
    for f in slurm.conf gres.conf slurmdbd.conf; do
        if [[ -e /etc/slurm/$f && ! -L /etc/slurm/$f ]]; then
            log "/etc/slurm/$f exists and is not ours: refusing to replace it"; exit 1
        fi
        ln -sfn "$DIR/etc/$f" "/etc/slurm/$f"
    done
}

start() {
    command -v slurmctld >/dev/null || install
    stop quiet || true
    rm -rf "$DIR"
    write_conf
    local t0=$SECONDS

    # munge: the Debian package ships /etc/munge/munge.key
    mkdir -p /run/munge && chown munge:munge /run/munge
    if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
        runuser -u munge -- /usr/sbin/munged --force
        echo started > "$DIR/run/munged.ours"
    fi
    wait_for 20 munge sh -c 'munge -n | unmunge'
    log "munge up"

    # MariaDB in $DIR, on its own port and socket
    mariadb-install-db --no-defaults --user=root --datadir="$DIR/db" --auth-root-authentication-method=normal \
        --skip-test-db > "$DIR/log/mariadb-install.log" 2>&1
    mariadbd --no-defaults --user=root --datadir="$DIR/db" --socket="$DIR/run/mysqld.sock" \
        --bind-address=127.0.0.1 --port="$DB_PORT" --pid-file="$DIR/run/mariadbd.pid" \
        --skip-name-resolve --innodb-buffer-pool-size=64M --log-error="$DIR/log/mariadbd.log" \
        </dev/null >>"$DIR/log/mariadbd.log" 2>&1 &
    wait_for 60 mariadb mariadb --no-defaults -uroot --socket="$DIR/run/mysqld.sock" -e 'select 1'
    mariadb --no-defaults -uroot --socket="$DIR/run/mysqld.sock" -e \
        "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurm'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
    log "mariadb up"

    slurmdbd  # reads slurmdbd.conf beside $SLURM_CONF
    wait_for 60 slurmdbd sacctmgr -n list cluster
    sacctmgr -i add cluster "$CLUSTER" >/dev/null
    sacctmgr -i add account lrworld-ci Description=ci Organization=ci >/dev/null
    sacctmgr -i add user "$(id -un)" Account=lrworld-ci DefaultAccount=lrworld-ci >/dev/null
    log "slurmdbd up, cluster '$CLUSTER' and account 'lrworld-ci' registered"

    slurmctld
    wait_for 60 slurmctld scontrol ping
    slurmd
    wait_for 60 "node idle" sh -c "sinfo -h -N -o %t | grep -qx idle"
    log "cluster up in $((SECONDS - t0)) s:"
    sinfo -o "%P %a %D %t %N %c %m %G"
    scontrol show node "$HOST" | grep -E "Gres=|CfgTRES"
}

stop() {
    local quiet=${1:-}
    for d in slurmd slurmctld slurmdbd mariadbd; do
        local pid
        pid=$(cat "$DIR/run/$d.pid" 2>/dev/null || true)
        if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
            [[ -z $quiet ]] && log "stopped $d"
        fi
    done
    if [[ -f $DIR/run/munged.ours ]]; then
        local mpid
        mpid=$(cat /run/munge/munged.pid 2>/dev/null || true)
        [[ -n $mpid ]] && kill "$mpid" 2>/dev/null || true
        rm -f "$DIR/run/munged.ours"
        [[ -z $quiet ]] && log "stopped munged"
    fi
    for f in slurm.conf gres.conf slurmdbd.conf; do
        if [[ $(readlink "/etc/slurm/$f" 2>/dev/null) == "$DIR/etc/$f" ]]; then rm -f "/etc/slurm/$f"; fi
    done
    return 0
}

case ${1:-} in
    install) install ;;
    start) start ;;
    stop) stop ;;
    *) echo "usage: $0 install|start|stop" >&2; exit 2 ;;
esac
