"""One module per rule a prompt file's ground truth rests on: `run(job, log)` computes what the rule's script does, from one job: its
input and output paths, params and wildcards (Snakemake's `snakemake` object in the script, or a job
of the dry run `lrworld plan` replays in a scratch folder: lrworld/workflow/planned_prompts.py), so
the plan's in-memory run is the run's. A module each: a rule's code closure holds only its own.
"""
