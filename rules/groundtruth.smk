# Ground truth of the five HitRate@1 measures (docs/groundtruth.md). Every artifact is its own
# output (lrworld/groundtruth/artifacts.py) with only its own config section as params, so a
# change of e.g. groundtruth.assoc.min_support re-runs assoc_rules and the association-rule
# questions only.


rule assoc_rules:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
    output:
        rules="results/gt/{dataset}/rules.parquet",
    params:
        assoc=W.gt["assoc"],
        code=W.code("groundtruth_rules.py"),
    log:
        "logs/gt/{dataset}/assoc_rules.log",
    benchmark:
        "logs/benchmark/gt/{dataset}/assoc_rules.tsv"
    threads: 1
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/groundtruth_rules.py"


rule similar_pairs:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
        item_table="results/data/{dataset}/items.parquet",
    output:
        pairs="results/gt/{dataset}/{kind}_similar_pairs.parquet",
    wildcard_constraints:
        kind="item|user",
    params:
        similarity=W.gt["similarity"],
        margin=W.gt["margin"]["memory"],
        n_questions=lambda wc: W.artifact_n_questions(wc.dataset, f"{wc.kind}_similar_pairs"),
        distractors=config["questions"]["distractors"],  # uniform | matched (docs/groundtruth.md)
        max_gold_share=config["questions"]["max_gold_share"],
        validity=config["questions"]["validity"],  # built overdraw x n, then filtered (docs/groundtruth.md)
        exclude_values=config["questions"]["exclude_values"],  # what a prompt shows of an item (matched)
        seed=W.gt["seed"],
        code=W.code("groundtruth_similarity.py"),
    log:
        "logs/gt/{dataset}/{kind}_similar_pairs.log",
    benchmark:
        "logs/benchmark/gt/{dataset}/{kind}_similar_pairs.tsv"
    threads: 1
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/groundtruth_similarity.py"


rule neumf:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
    output:
        model="results/gt/{dataset}/neumf.pt",
        embeddings="results/gt/{dataset}/embeddings.parquet",
    params:
        neumf=W.gt["neumf"],
        code=W.code("groundtruth_neumf.py"),
    resources:
        gpu=1,  # CPU works (device: auto); on a cluster the profile sends this rule to a GPU node
        slurm_partition=W.partition(1),
    log:
        "logs/gt/{dataset}/neumf.log",
    benchmark:
        "logs/benchmark/gt/{dataset}/neumf.tsv"
    # one thread: NeuMF's batches (1,024 pairs, 16-64 dims) are too small for intra-op threads to
    # pay for their synchronisation; on a 2-core machine 2 threads trained 1.4x to 10x slower than
    # one, the busier the machine the worse (benchmarks/bench_neumf_threads.py)
    threads: 1
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/groundtruth_neumf.py"


rule prototypes:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
        embeddings="results/gt/{dataset}/embeddings.parquet",
        # the whole trained model: a gold from its predicted preference (groundtruth.neural.gold: score)
        model="results/gt/{dataset}/neumf.pt",
        item_table="results/data/{dataset}/items.parquet",
    output:
        prototypes="results/gt/{dataset}/prototypes.parquet",
    params:
        kmeans=W.gt["kmeans"],
        margin=W.gt["margin"]["neural"],
        min_interactions=W.gt["neural"]["min_interactions"],
        gold=W.gt["neural"]["gold"],  # cosine (the paper's) | score (docs/groundtruth.md)
        n_questions=lambda wc: W.artifact_n_questions(wc.dataset, "prototypes"),
        distractors=config["questions"]["distractors"],  # uniform | matched (docs/groundtruth.md)
        max_gold_share=config["questions"]["max_gold_share"],
        validity=config["questions"]["validity"],  # built overdraw x n, then filtered (docs/groundtruth.md)
        exclude_values=config["questions"]["exclude_values"],  # what a prompt shows of an item (matched)
        seed=W.gt["seed"],
        code=W.code("groundtruth_prototypes.py"),
    log:
        "logs/gt/{dataset}/prototypes.log",
    benchmark:
        "logs/benchmark/gt/{dataset}/prototypes.tsv"
    threads: 1
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/groundtruth_prototypes.py"


# The artifacts that name their function (`make=` in lrworld/groundtruth/artifacts.py): one rule,
# each job importing only its artifact's module.
rule gt_artifact:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
    output:
        artifact="results/gt/{dataset}/{artifact}.parquet",
    wildcard_constraints:
        artifact=alt(W.made_artifacts),
    params:
        make=lambda wc: W.made_artifacts[wc.artifact],
        n_questions=W.gt["n_questions"],
        seed=W.gt["seed"],
        code=lambda wc: W.made_code(wc.artifact),
    log:
        "logs/gt/{dataset}/{artifact}.log",
    threads: 1
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/groundtruth_artifact.py"


rule gt_questions:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
        item_table="results/data/{dataset}/items.parquet",
        artifact=lambda wc: W.gt_artifact(wc.dataset, wc.gt_measure),
    output:
        questions="results/questions/{dataset}/{gt_measure}.jsonl",
        report="results/questions/{dataset}/{gt_measure}.report.json",
    wildcard_constraints:
        gt_measure=alt(W.gt_measures),
    params:
        n_questions=lambda wc: W.gt_n_questions(wc.dataset, wc.gt_measure),
        distractors=config["questions"]["distractors"],  # uniform | matched (docs/groundtruth.md)
        max_gold_share=config["questions"]["max_gold_share"],
        validity=config["questions"]["validity"],  # built overdraw x n, then filtered (docs/groundtruth.md)
        exclude_values=config["questions"]["exclude_values"],  # what a prompt shows of an item (matched)
        user_items=lambda wc: DATASETS[wc.dataset]["user_items_shown"],  # ... and of a candidate user
        seed=W.gt["seed"],
        code=lambda wc: W.gt_questions_code(wc.gt_measure),
    log:
        "logs/questions/{dataset}/{gt_measure}.log",
    threads: 1
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/groundtruth_questions.py"
