"""The retry policy alone: Retry-After parsing, backoff growth, jitter bounds."""

from __future__ import annotations

import random
from email.utils import formatdate

import pytest

from lrworld.models.retry import RetryPolicy, parse_retry_after

NOW = 1_800_000_000.0  # a fixed wall clock


def test_retry_after_seconds_ms_and_date():
    assert parse_retry_after({"retry-after": "7"}) == 7.0
    assert parse_retry_after({"retry-after": " 1.5 "}) == 1.5
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    # retry-after-ms is more precise and wins when both are sent
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "1"}) == 0.25
    date = formatdate(NOW + 42, usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=lambda: NOW) == pytest.approx(42.0)
    # RFC 5322 "-0000" dates come back naive from Python; they are UTC
    assert parse_retry_after({"retry-after": formatdate(NOW + 5)}, now=lambda: NOW) == pytest.approx(5.0)


def test_retry_after_absent_past_or_garbage():
    assert parse_retry_after(None) is None
    assert parse_retry_after({}) is None
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({"retry-after": "inf"}) is None
    assert parse_retry_after({"retry-after": "-3"}) == 0.0
    assert parse_retry_after({"retry-after": formatdate(NOW - 60, usegmt=True)}, now=lambda: NOW) == 0.0


def test_backoff_doubles_within_jitter_and_is_capped():
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=8.0, jitter=0.5)
    rng = random.Random(1)
    for retry in range(1, 8):
        raw = min(8.0, 2 ** (retry - 1))
        for _ in range(50):
            assert raw * 0.5 <= policy.backoff(retry, rng) <= raw
    # jitter actually spreads the delays
    assert len({round(policy.backoff(3, rng), 6) for _ in range(20)}) > 10


def test_delay_never_shorter_than_retry_after():
    policy = RetryPolicy(max_delay_s=1.0)
    rng = random.Random(0)
    for ra in (0.0, 0.3, 5.0, 120.0):
        for _ in range(20):
            d = policy.delay(1, ra, rng)
            assert ra <= d <= ra + min(1.0, 0.1 * ra) + 1e-9  # Retry-After beats max_delay_s


def test_policy_rejects_nonsense():
    with pytest.raises(ValueError):
        RetryPolicy(max_retries=-1)
    with pytest.raises(ValueError):
        RetryPolicy(jitter=2)
