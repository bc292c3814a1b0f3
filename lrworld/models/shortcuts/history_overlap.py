from lrworld.models.shortcut import HISTORY_OVERLAP, register_shortcut, signal


@register_shortcut("history_overlap", reads=(HISTORY_OVERLAP,))
def history_overlap(item):
    """The option sharing the most words with the question's history (titles, names): what a
    surface match with the context rewards."""
    return signal(item, HISTORY_OVERLAP)
