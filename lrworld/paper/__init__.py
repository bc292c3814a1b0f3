"""The LRWorld paper's own figures (arXiv 2512.17389), as package data read from its text."""
