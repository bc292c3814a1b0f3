from lrworld.models.shortcut import GOLD_COUNT_OTHERS, register_shortcut, signal


@register_shortcut("gold_prior", reads=(GOLD_COUNT_OTHERS,))
def gold_prior(item):
    """The option that is the gold of the most other questions of the measure (leave-one-out: the
    question's own gold is never counted): what a label prior or a hub gold rewards."""
    return signal(item, GOLD_COUNT_OTHERS)
