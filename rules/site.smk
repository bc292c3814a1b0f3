# The results browser (lrworld/site/, docs/browser.md): one self-contained page per results table,
# every cell linking to its questions, answers, provenance chain and audit findings; opens from
# the file system. The pages are in the Snakemake report too (category "Results browser").

# the LLaRA and SRBench tables get a plain page each (their rows are not option questions)
SITE_TRACKS = [t for t in W.llara.targets() + W.srbench.targets() if t.endswith(".csv")]
SITE = ["results/site/index.html"] + expand("results/site/{dataset}.html", dataset=DATASETS)


rule site_plots:
    input:
        table="results/tables/{dataset}.csv",
    output:
        **plot_outputs("heatmap", "heatmap_plot", "Results browser"),
        **plot_outputs("radar", "radar_plot", "Results browser"),
    params:
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        code=W.code("site_plots.py"),
    log:
        "logs/site/{dataset}.plots.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/site_plots.py"


rule site_page:
    input:
        table="results/tables/{dataset}.csv",
        heatmap="results/analysis/{dataset}/plots/heatmap.png",
        radar="results/analysis/{dataset}/plots/radar.png",
        # The page reads every cell's score, responses, prompts and provenance record. They are
        # upstream of the table and of its provenance record, so those two stand for them: a change
        # to any cell re-runs the page through them, and the page job has 5 inputs rather than
        # ~2,500 per dataset at paper scale (docs/slurm.md, planning at scale).
        records="results/provenance/{dataset}/table.json",
        audit="results/audit/{dataset}.json",
        paper="results/tables/{dataset}.paper.csv",  # the paper's figure under each cell it has
    output:
        # the label keys of the plots beside it (lrworld.workflow.analysis.plot_outputs)
        page=report("results/site/{dataset}.html", caption="../docs/report/site.rst", category="Results browser",
                    subcategory="{dataset}", labels={"dataset": "{dataset}", "table": "results browser", "figure": ""}),
    params:
        domain=lambda wc: DATASETS[wc.dataset]["domain"],
        scores=lambda wc: W.score_files(wc.dataset),
        bootstrap=WA.bootstrap,
        code=W.code("site.py"),
    log:
        "logs/site/{dataset}.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/site.py"


rule site_index:
    input:
        tables=expand("results/tables/{dataset}.csv", dataset=DATASETS),
        track_tables=SITE_TRACKS,
    output:
        index="results/site/index.html",
        tracks=[t.replace("results/tables/", "results/site/tracks/").replace(".csv", ".html") for t in SITE_TRACKS],
    params:
        datasets=list(DATASETS),
        domains={ds: spec["domain"] for ds, spec in DATASETS.items()},
        code=W.code("site_index.py"),
    log:
        "logs/site/index.log",
    conda:
        "../envs/lrworld.yaml"
    script:
        "../scripts/site_index.py"
