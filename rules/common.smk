# Config validation, the plan (names, targets, input functions: lrworld/workflow/plan.py) and the
# wildcard constraints. The stage files hold rules only.
import sys

sys.path.insert(0, workflow.basedir)

from lrworld.core import plugins

# config's plugin folders go on the path before any registry loads (lrworld/core/plugins.py)
try:
    plugins.use_folders(config.get("plugins"))
except plugins.PluginError as exc:
    raise WorkflowError(f"config: {exc}") from None

from lrworld.config import assembly as lrw_config, files as config_files
from lrworld.core import disk, yamlfile
from lrworld.core.schema import ConfigError
from lrworld.workflow.analysis import plot_outputs, table_outputs
from lrworld.workflow import reask
from lrworld.workflow.plan import CAPTIONER, TRACKS, Plan, alt

try:
    yamlfile.check_files(workflow.configfiles)  # duplicated keys: Snakemake's loader keeps the last
    # a --configfile's datasets and models choose what runs instead of adding to config.yaml's
    config_files.choose(config, workflow.overwrite_configfiles, workflow.config_settings.config)
    lrw_config.validate(config)
    # Defaults live only in the schema and the backends' schema fragments; this fills them in.
    lrw_config.fill_defaults(config)
    W = Plan(config, workflow.basedir)
    # a read-only (or full) results, logs or cache folder stops the run here, not mid-job
    for folder, key in (("results", "results"), ("logs", "logs"), (config["cache_dir"], "cache_dir")):
        if disk.writable(folder):
            raise ConfigError(f"{key}: {disk.writable(folder)}")
except ConfigError as exc:
    # One line naming the key, before any job is planned.
    raise WorkflowError(str(exc)) from None
DATASETS = W.datasets


def answers_input(pattern):
    """An answer summary as its readers' input: ancient, or plain in an invocation that re-asks
    (lrworld/workflow/reask.py). A function: Snakemake sets the run's DAG settings after it has
    read the Snakefile, before it evaluates input functions."""
    return lambda wc: (str if reask.from_workflow(workflow) else ancient)(pattern.format(**wc))

MODELS = W.models
VARIANTS = W.variants


wildcard_constraints:
    dataset=alt(DATASETS),
    model=alt([*MODELS, CAPTIONER, *W.llara.trained, *W.llara.released]),
    measure=alt(W.measures),
    variant=alt(W.all_variants),
    track=alt(TRACKS),
    scope=alt(W.scopes()),
    sr_dataset=alt(W.srbench.datasets),
    ll_dataset=alt(W.llara.datasets),
    llm=alt(W.llara.answered),
    trained=alt(W.llara.trained),
    ll_form=alt(W.llara.forms),
    baseline=alt(W.llara.baselines),
    sr_baseline=alt(W.srbench.baselines),
    ll_seed=r"\d+",
    sr_seed=r"\d+",
    row=alt(W.llara.rows),
    recommender=alt(W.srbench.recommenders),
    table=alt(W.docs.names()),


# the stages' shorthands
WA, WL, WS = W.analysis, W.llara, W.srbench
