from lrworld.models.shortcut import register_shortcut


@register_shortcut("longest_text")
def longest_text(item):
    """The option whose text is longest (in characters)."""
    return [len(c) for c in item.candidates] if len(item.candidates) == len(item.labels) else None
