"""LLaRA's own model: hybrid item tokens (title + behavioural embedding), its projector, its
curriculum training (projector + LoRA) and released-checkpoint loading (docs/llara.md)."""
