"""Model backends (`random`, `hf`, `openai`, ...) behind one contract (`base`) and one registry."""

from lrworld.models.base import Backend, PromptItem, Response
from lrworld.models.registry import make_backend

__all__ = ["Backend", "PromptItem", "Response", "make_backend"]
