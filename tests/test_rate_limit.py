"""Rate limits per endpoint: requests and tokens per minute, shared by a worker's episodes, and 429 pauses."""

from __future__ import annotations

import asyncio
import time

import pytest

from pytest_thinkingbox.roles.rate_limit import RateLimit


def _timed(limit: RateLimit, requests: int, tokens: int = 0) -> float:
    async def run() -> None:
        async def one() -> None:
            await limit.acquire()
            limit.spent(tokens)

        await asyncio.gather(*(one() for _ in range(requests)))

    started = time.monotonic()
    asyncio.run(run())
    return time.monotonic() - started


def test_requests_are_spaced_by_the_share_of_the_limit():
    assert _timed(RateLimit(600, None, burst_s=0.1), 6) == pytest.approx(0.5, abs=0.15)  # 10 a second
    assert _timed(RateLimit(600, None, share=0.5, burst_s=0.1), 6) == pytest.approx(1.0, abs=0.2)  # 1 of 2 workers


def test_tokens_are_paid_after_the_reply_and_debt_holds_the_next_requests():
    # 100 tokens a second, 10 at most in the bucket: 3 replies of 50 tokens leave 140 to pay off before the 3rd.
    assert _timed(RateLimit(None, 6000, burst_s=0.1), 3, tokens=50) == pytest.approx(0.92, abs=0.2)


def test_a_429_pauses_every_request_through_the_limit():
    limit = RateLimit(60_000, None)
    limit.pause(0.4)
    assert _timed(limit, 5) == pytest.approx(0.4, abs=0.15)
