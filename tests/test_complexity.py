"""Functions that do one thing: no function or method of the package or its scripts has a
cyclomatic complexity that radon ranks E or F (over 30 branches); split such a function into
named steps instead."""

from pathlib import Path

from radon.complexity import cc_rank, cc_visit

ROOT = Path(__file__).resolve().parents[1]
WORST = "D"  # radon's ranks: A 1-5, B 6-10, C 11-20, D 21-30, E 31-40, F 41+


def blocks(path: Path):
    """Every function, method and nested function of a file."""
    todo = list(cc_visit(path.read_text(encoding="utf-8")))
    while todo:
        block = todo.pop()
        yield block
        todo += [*getattr(block, "methods", []), *getattr(block, "closures", [])]


def test_no_function_ranks_worse_than_d():
    too_complex = sorted({f"{p.relative_to(ROOT)}:{b.lineno} {b.fullname} {cc_rank(b.complexity)} ({b.complexity})"
                          for tree in ("lrworld", "scripts") for p in (ROOT / tree).rglob("*.py")
                          for b in blocks(p) if cc_rank(b.complexity) > WORST})
    assert too_complex == [], "split these into named steps:\n" + "\n".join(too_complex)


def test_the_rank_is_radons():
    assert [cc_rank(n) for n in (5, 10, 20, 30, 31, 41)] == ["A", "B", "C", "D", "E", "F"]
    code = "def f(x):\n" + "".join(f"    if x == {i}:\n        return {i}\n" for i in range(31)) + "    return -1\n"
    (f,) = cc_visit(code)
    assert f.complexity == 32 and cc_rank(f.complexity) > WORST
