"""Model backends: `random`, `hf` (transformers) and `openai` (OpenAI API and compatible servers)."""

from lrworld.models.base import Backend, PromptItem, Response, make_backend

__all__ = ["Backend", "PromptItem", "Response", "make_backend"]
