"""The results browser: a static site under results/site/ (one page per results table, every
cell linking to the questions behind it), built by rules/site.smk; see docs/browser.md."""
