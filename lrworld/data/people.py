"""One person under two spellings is one person id: where a source names a film's people by id
(IMDb's title.crew / title.principals nconsts, named by name.basics), another source's name for that
film is the person whose id it resolves to.

A name resolves to the credited people of the film it is given for, never to anyone else: to the
one whose name reads the same (`core.names.same_name`), else to the one credited person of that
family name whose given name starts with the same letter ("Charles Russell" -> Chuck Russell's
nm0751102 on Eraser; "Tony Scott" never to a film's Ridley Scott), and a pair credited as one ("Larry
and Andy Wachowski") to the credited people of that family name when there are as many of them
(Bound: Lana and Lilly Wachowski)."""

from __future__ import annotations

from lrworld.core.names import name_words as _words, same_name


def resolve(name: str, credited: dict[str, str]) -> frozenset[str]:
    """The person ids among `credited` (id -> name: the film's people of one field) that `name` is."""
    if not credited:
        return frozenset()
    same = frozenset(i for i, n in credited.items() if same_name(n, name))
    if same:
        return same
    words = _words(name)
    if len(words) < 2:
        return frozenset()
    family = {i: w for i, n in credited.items() if (w := _words(n)) and w[-1] == words[-1]}
    if "and" in words[1:-1]:
        given = [w for w in words[:-1] if w != "and"]
        return frozenset(family) if len(family) == len(given) else frozenset()
    if len(family) == 1:
        (i, w), = family.items()
        return frozenset([i]) if w[0][:1] == words[0][:1] else frozenset()
    return frozenset()


def same_person(credited: dict[str, str]):
    """A comparison of two names given for one film: the same name, or the same credited person."""
    if not credited:
        return same_name
    cache: dict[str, frozenset] = {}

    def ids(x: str) -> frozenset:
        if x not in cache:
            cache[x] = resolve(x, credited)
        return cache[x]

    return lambda a, b: same_name(a, b) or bool(ids(a) & ids(b))
