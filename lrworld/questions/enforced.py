"""The rules the benchmark enforces, one function each. The question builders call them when they
choose a gold or a negative, the audit (lrworld/audit/checks.py) when it re-checks the questions
from the data: a question is never refused for a rule its builder did not apply.

- the same work for a reader (`work_key`, `same_work`): two ids a prompt would show alike are one
  work to the model. Ingest already merged the ids that share an external id (data/works.py), so
  what is left alike is the display key of the shown text, `title (year)`; the two *War of the
  Worlds (2005)* of ml-latest are two films, but an option reading like a film of the history
  cannot be told from it.
- the same person (`person_key`, `same_person`): a name in any word order ("Scott, Ridley" is
  "Ridley Scott"), without job titles, disambiguators, accents, case or punctuation.
- a leak (`leaked_by`): a negative the user met, by id or as the same work.
- a true distractor (`true_of`): a value that is one of the positive's (by `value_key`).
- a tie window (`tied`): the positive shares its timestamp with the last history item.
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping

from lrworld.core.display import display_key
from lrworld.core.names import NAME_FIELDS, name_words


def work_key(item, works: Mapping[str, str] | None) -> str:
    """What a reader takes item `item` for: its display key in `works` (item id -> display key,
    prompts.render.item_keys), else its id."""
    item = str(item)
    return works.get(item, item) if works else item


def same_work(a, b, works: Mapping[str, str] | None) -> bool:
    """One work to a reader: the same id, or ids that read the same."""
    return str(a) == str(b) or work_key(a, works) == work_key(b, works)


class Met:
    """Everything one user met (`history`: ids), by id and by the work a reader takes each for."""

    def __init__(self, history: Iterable, works: Mapping[str, str] | None):
        self.works = works
        self.ids = {str(h) for h in history}
        self.by_work: dict[str, str] = {}
        for h in sorted(self.ids):
            self.by_work.setdefault(work_key(h, works), h)

    def leaked_by(self, negative) -> str | None:
        """The item met that `negative` is, by id or as the same work, or None: a negative the user
        met is a right answer, not a wrong one."""
        negative = str(negative)
        if negative in self.ids:
            return negative
        return self.by_work.get(work_key(negative, self.works))


def leaked_by(negative, history: Iterable, works: Mapping[str, str] | None) -> str | None:
    """`Met(history, works).leaked_by(negative)`."""
    return Met(history, works).leaked_by(negative)


def person_key(name) -> str:
    """A person's compared form: the name's words (core.names) in sorted order, so 'Scott, Ridley'
    and 'Ridley Scott' are one key."""
    return "".join(sorted(name_words(name)))


def same_person(a, b) -> bool:
    ka = person_key(a)
    return bool(ka) and ka == person_key(b)


def value_key(field: str | None) -> Callable[[object], str]:
    """How values of `field` compare: people by `person_key`, anything else by its display key."""
    return person_key if field in NAME_FIELDS else display_key


def true_of(value, positive_values: Iterable, field: str | None) -> bool:
    """Value `value` is one of the positive's values of `field`: never a distractor."""
    key = value_key(field)
    return key(value) in {key(v) for v in positive_values}


def tied(positive_stamp, last_history_stamp) -> bool:
    """The positive shares its timestamp with the last history item: "latest" is then only the
    order of ids, not of time."""
    return bool(positive_stamp == last_history_stamp)
