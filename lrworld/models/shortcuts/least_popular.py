from lrworld.models.shortcut import POPULARITY, register_shortcut, signal


@register_shortcut("least_popular", reads=(POPULARITY,))
def least_popular(item):
    """The option with the fewest interactions: what golds of barely-trained embeddings reward."""
    pop = signal(item, POPULARITY)
    return None if pop is None else [-p for p in pop]
