# Ground truth of the five HitRate@1 measures (issue 3; docs/groundtruth.md). Every artifact is
# its own output with only its own config section as params, so a change of e.g.
# groundtruth.assoc.min_support re-runs assoc_rules and the assoc_rule questions only.

from lrworld.groundtruth.config import MEASURES as GT_MEASURES, resolve

GT = resolve(config.get("groundtruth"))
# Unless set in the groundtruth section, question count and seed follow the rest of the config.
_GT_USER = config.get("groundtruth") or {}
if "n_questions" not in _GT_USER and config["questions"]["per_measure"]:
    GT["n_questions"] = config["questions"]["per_measure"]
if "seed" not in _GT_USER:
    GT["seed"] = config["seed"]


rule assoc_rules:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
        code=code("groundtruth/transactions.py", "groundtruth/rules.py"),
    output:
        rules="results/gt/{dataset}/rules.parquet",
    params:
        assoc=GT["assoc"],
    log:
        "logs/gt/{dataset}/assoc_rules.log",
    threads: 1
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/groundtruth_rules.py"


rule similar_pairs:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
        item_table="results/data/{dataset}/items.parquet",
        code=code("groundtruth/similarity.py", "questions/negatives.py", "questions/seeding.py", "questions/display.py"),
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
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/groundtruth_similarity.py"


rule neumf:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
        code=code("groundtruth/neumf.py"),
    output:
        model="results/gt/{dataset}/neumf.pt",
        embeddings="results/gt/{dataset}/embeddings.parquet",
    params:
        neumf=GT["neumf"],
    resources:
        gpu=1,  # CPU works (device: auto); on a cluster the profile sends this rule to a GPU node
        slurm_partition=slurm_partition(1),
    log:
        "logs/gt/{dataset}/neumf.log",
    threads: 2
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/groundtruth_neumf.py"


rule prototypes:
    input:
        interactions="results/data/{dataset}/interactions.parquet",
        embeddings="results/gt/{dataset}/embeddings.parquet",
        item_table="results/data/{dataset}/items.parquet",
        code=code("groundtruth/prototypes.py", "questions/negatives.py", "questions/seeding.py", "questions/display.py"),
    output:
        prototypes="results/gt/{dataset}/prototypes.parquet",
    params:
        kmeans=GT["kmeans"],
        n_questions=GT["n_questions"],
        seed=GT["seed"],
    log:
        "logs/gt/{dataset}/prototypes.log",
    threads: 1
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/groundtruth_prototypes.py"


# Everything a measure's ground truth rests on, for its provenance chain.
GT_CHAIN = {
    "assoc_rule": ["results/gt/{dataset}/rules.parquet"],
    "mem_item_item": ["results/gt/{dataset}/item_similar_pairs.parquet"],
    "mem_user_user": ["results/gt/{dataset}/user_similar_pairs.parquet"],
    "neu_item2users": ["results/gt/{dataset}/prototypes.parquet", "results/gt/{dataset}/embeddings.parquet",
                       "results/gt/{dataset}/neumf.pt"],
}
GT_CHAIN["neu_user2items"] = GT_CHAIN["neu_item2users"]


def ground_truth_files(wildcards):
    return [f.format(dataset=wildcards.dataset) for f in GT_CHAIN.get(wildcards.measure, [])]


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
        code=code("groundtruth/questions.py", "groundtruth/config.py", "questions/negatives.py", "questions/seeding.py",
                  "questions/display.py"),
    output:
        questions="results/questions/{dataset}/{gt_measure}.jsonl",
        report="results/questions/{dataset}/{gt_measure}.report.json",
    wildcard_constraints:
        gt_measure=_alt(GT_MEASURES),
    params:
        n_questions=GT["n_questions"],
        seed=GT["seed"],
    log:
        "logs/questions/{dataset}/{gt_measure}.log",
    threads: 1
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/groundtruth_questions.py"
