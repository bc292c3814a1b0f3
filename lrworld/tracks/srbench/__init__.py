"""SRBench (sequential recommendation with LLMs): multi-dimensional metrics (accuracy, fairness,
stability, efficiency), a unified prompt, the prompt-extractor, NN-SR baselines and LLM-SR runs.

Modules: `data` (datasets, leave-one-out split), `metrics`, `extract`, `prompts`, `runner`,
`tables`, `steps` (the Snakemake steps). See docs/srbench.md.
"""
