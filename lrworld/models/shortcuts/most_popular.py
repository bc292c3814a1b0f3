from lrworld.models.shortcut import POPULARITY, register_shortcut, signal


@register_shortcut("most_popular", reads=(POPULARITY,))
def most_popular(item):
    """The option with the most interactions in the data (items, users) or carried by the most
    items (values): what a popularity-biased construction rewards."""
    return signal(item, POPULARITY)
