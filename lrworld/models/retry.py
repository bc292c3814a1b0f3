"""Retry policy for remote model calls: exponential backoff with jitter, `Retry-After`, a budget.

Kept free of any HTTP client so it can be tested with a fake clock and a fake sleep. The openai
backend decides *whether* an error is retryable (`classify` there); this module decides *how long*
to wait and *when to give up*.
"""

from __future__ import annotations

import email.utils
import math
import random
import time
from dataclasses import dataclass
from datetime import timezone
from typing import Callable, Mapping


class BackendError(RuntimeError):
    """A model call failed for good (budget exhausted or a non-retryable error). The message is one
    line naming the model and the last error; it never contains the API key."""


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 8  # retries after the first attempt; 0 = try once
    max_wait_s: float = 600.0  # total time one item may spend sleeping between attempts
    base_delay_s: float = 1.0  # first backoff; doubles each retry
    max_delay_s: float = 60.0  # cap on one computed backoff (Retry-After may ask for more)
    jitter: float = 0.5  # backoff is scaled by a uniform factor in [1 - jitter, 1]

    def __post_init__(self):
        if self.max_retries < 0 or self.max_wait_s < 0 or self.base_delay_s < 0 or self.max_delay_s < 0:
            raise ValueError("retry policy values must be >= 0")
        if not 0 <= self.jitter <= 1:
            raise ValueError("retry jitter must be in [0, 1]")

    def backoff(self, retry: int, rng: random.Random | None = None) -> float:
        """Delay before retry number `retry` (1-based) when the server gave no Retry-After."""
        raw = min(self.max_delay_s, self.base_delay_s * (2 ** (retry - 1)))
        u = (rng or random).random()
        return raw * (1 - self.jitter * u)

    def delay(self, retry: int, retry_after: float | None, rng: random.Random | None = None) -> float:
        """Retry-After wins when given (never sleep less than the server asked); a little jitter is
        added on top so that many workers told the same thing do not return in lockstep."""
        if retry_after is None:
            return self.backoff(retry, rng)
        u = (rng or random).random()
        return retry_after + min(1.0, 0.1 * retry_after) * u


def parse_retry_after(headers: Mapping[str, str] | None, now: Callable[[], float] = time.time) -> float | None:
    """Seconds to wait from `retry-after-ms`, or `retry-after` as seconds or an HTTP date.
    None when absent or unparsable; never negative."""
    if not headers:
        return None
    get = headers.get
    ms = get("retry-after-ms")
    if ms is not None:
        try:
            value = float(ms) / 1000
            if math.isfinite(value):
                return max(0.0, value)
        except ValueError:
            pass
    value = get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
        return max(0.0, seconds) if math.isfinite(seconds) else None
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:  # "-0000" dates: RFC 5322 says UTC, Python returns them naive
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, when.timestamp() - now())
