# Ground truth of the five hit10 measures (draft; include from the Snakefile).
# Every artifact is its own output with only its own config section as params, so a change of
# e.g. groundtruth.assoc.min_support re-runs assoc_rules and the assoc_rule questions only.

from lrworld.groundtruth.config import MEASURES, resolve

GT = resolve(config.get("groundtruth"))

GT_MEASURE_RE = "|".join(MEASURES)


rule assoc_rules:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
    output:
        rules="results/gt/{dataset}/rules.parquet",
    params:
        assoc=GT["assoc"],
    log:
        "logs/gt/{dataset}/assoc_rules.log",
    threads: 1
    script:
        "../scripts/groundtruth_rules.py"


rule similar_pairs:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
    output:
        pairs="results/gt/{dataset}/{kind}_similar_pairs.parquet",
    wildcard_constraints:
        kind="item|user",
    params:
        similarity=GT["similarity"],
        n_questions=GT["n_questions"],
        seed=GT["seed"],
    log:
        "logs/gt/{dataset}/{kind}_similar_pairs.log",
    threads: 1
    script:
        "../scripts/groundtruth_similarity.py"


rule neumf:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
    output:
        model="results/gt/{dataset}/neumf.pt",
        embeddings="results/gt/{dataset}/embeddings.parquet",
    params:
        neumf=GT["neumf"],
    resources:
        gpu=1,
    log:
        "logs/gt/{dataset}/neumf.log",
    threads: 2
    script:
        "../scripts/groundtruth_neumf.py"


rule prototypes:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
        embeddings="results/gt/{dataset}/embeddings.parquet",
    output:
        prototypes="results/gt/{dataset}/prototypes.parquet",
    params:
        kmeans=GT["kmeans"],
        n_questions=GT["n_questions"],
        seed=GT["seed"],
    log:
        "logs/gt/{dataset}/prototypes.log",
    threads: 1
    script:
        "../scripts/groundtruth_prototypes.py"


GT_ARTIFACT = {
    "assoc_rule": "results/gt/{dataset}/rules.parquet",
    "mem_item_item": "results/gt/{dataset}/item_similar_pairs.parquet",
    "mem_user_user": "results/gt/{dataset}/user_similar_pairs.parquet",
    "neu_item2users": "results/gt/{dataset}/prototypes.parquet",
    "neu_user2items": "results/gt/{dataset}/prototypes.parquet",
}


rule gt_questions:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
        item_table="results/data/{dataset}/items.parquet",
        artifact=lambda w: [GT_ARTIFACT[w.gt_measure].format(dataset=w.dataset)],
    output:
        questions="results/questions/{dataset}/{gt_measure}.jsonl",
    wildcard_constraints:
        gt_measure=GT_MEASURE_RE,
    params:
        n_questions=GT["n_questions"],
        seed=GT["seed"],
    log:
        "logs/questions/{dataset}/{gt_measure}.log",
    threads: 1
    script:
        "../scripts/groundtruth_questions.py"
