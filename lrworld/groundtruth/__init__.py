"""Ground truth for the five HitRate@1 factors of LRWorld (association, memory, neural)."""
