from lrworld.models.shortcut import register_shortcut


@register_shortcut("shortest_text")
def shortest_text(item):
    """The option whose text is shortest (in characters)."""
    return [-len(c) for c in item.candidates] if len(item.candidates) == len(item.labels) else None
