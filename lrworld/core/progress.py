"""Progress of long loops (answers, downloads, caption requests, NeuMF and baseline training):
one tqdm bar per loop.

On a terminal tqdm draws its bar on stderr. Otherwise (a Snakemake job's log, SLURM) the bar's
text goes to the log as a line when LOG_EVERY_S seconds have passed since the last line or the
loop has crossed another LOG_STEP of its total, and once at the end: a job that runs for hours
writes a line every half minute, a short one about twenty. tqdm already does the counting, rates
and ETA; only the "time or share" rule for log lines is added here.
"""

from __future__ import annotations

import logging
import sys
import time

from tqdm import tqdm

LOG_EVERY_S = 30.0
LOG_STEP = 0.05


class _LogLines:
    """A file-like sink for tqdm that logs a refresh when it is due (see the module docstring)."""

    def __init__(self, log: logging.Logger, every_s: float, step: float):
        self.log, self.every_s, self.step = log, every_s, step
        self.bar: tqdm | None = None
        self._last_t = time.monotonic()
        self._last_n = None
        self._last_step = 0

    def write(self, s: str) -> None:
        s = s.strip("\r\n ")
        if not s or self.bar is None:
            return
        n, total = self.bar.n, self.bar.total
        step = int(n / total / self.step) if total else 0
        now = time.monotonic()
        closing = self.bar.disable  # tqdm.close() sets it before its last refresh
        due = closing or now - self._last_t >= self.every_s or step > self._last_step or bool(total and n >= total)
        if due and n and n != self._last_n:  # nothing done yet: nothing to report
            self.log.info("%s", s)
            self._last_t, self._last_n, self._last_step = now, n, step

    def flush(self) -> None:
        pass


def bar(total: int | None, desc: str, unit: str = "it", log: logging.Logger | None = None,
        every_s: float = LOG_EVERY_S, step: float = LOG_STEP, **kw) -> tqdm:
    """A tqdm bar over `total` steps (None: unknown). `kw` goes to tqdm (unit_scale=True for bytes)."""
    if sys.stderr.isatty():
        return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, mininterval=0.5, dynamic_ncols=True, **kw)
    sink = _LogLines(log or logging.getLogger("lrworld.progress"), every_s, step)
    # one refresh a second at most; the sink decides which refreshes become log lines
    b = tqdm(total=total, desc=desc, unit=unit, file=sink, mininterval=1.0, miniters=1, ascii=True, ncols=100, **kw)
    sink.bar = b
    return b
