"""LLaRA's evaluation (arXiv 2312.02445): next-item choice among 20 frozen candidates, answered by
title, scored by LLaRA's substring parse (HitRatio@1 and valid ratio). See docs/llara.md."""
