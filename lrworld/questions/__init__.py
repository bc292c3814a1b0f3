"""Question construction: windows over histories, negatives, seeded shuffles, per-measure builders."""
