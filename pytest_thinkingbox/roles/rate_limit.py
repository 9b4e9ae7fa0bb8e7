"""A model endpoint's rate limit, shared by every episode of a worker that calls it.

Providers limit requests and tokens per minute. `RateLimit` is a token bucket
for each: a request waits until both buckets can pay for it. Requests are paid
before they are sent; tokens only after the reply says how many were used, so
the token bucket may go into debt and the next requests wait until it is paid
off. A 429 from the endpoint pauses every request through the limit for the
server's ``retry-after`` (or the backoff), not only the one that got it.

Workers do not talk to each other: each takes an equal share of the budget
(``share``), so N workers together stay within it.
"""

from __future__ import annotations

import asyncio
import time

BURST_S = 10.0  # a bucket holds this many seconds of its budget: bursts stay a sixth of a minute's allowance


class Bucket:
    """`per_minute` units, refilled continuously, holding at most `BURST_S` seconds' worth."""

    def __init__(self, per_minute: float, burst_s: float = BURST_S) -> None:
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate * burst_s)
        self.level = self.capacity
        self._at = time.monotonic()

    def refill(self) -> None:
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self._at) * self.rate)
        self._at = now

    def wait_for(self, amount: float) -> float:
        """Seconds until `amount` can be paid (0 when it can be now)."""
        self.refill()
        return max(0.0, (min(amount, self.capacity) - self.level) / self.rate)


class RateLimit:
    """Requests and tokens per minute for one endpoint and model, this worker's `share` of them."""

    def __init__(
        self,
        requests_per_minute: float | None,
        tokens_per_minute: float | None,
        share: float = 1.0,
        burst_s: float = BURST_S,
    ) -> None:
        self.requests = Bucket(requests_per_minute * share, burst_s) if requests_per_minute else None
        self.tokens = Bucket(tokens_per_minute * share, burst_s) if tokens_per_minute else None
        self._paused_until = 0.0
        self._turn = asyncio.Lock()  # requests wait in turn, so none is overtaken forever
        self.waited_s = 0.0  # time requests spent waiting here, for the bench and for reports

    async def acquire(self) -> None:
        """Wait until a request may be sent, and pay for it."""
        started = time.monotonic()
        async with self._turn:
            while True:
                delay = self._paused_until - time.monotonic()
                if self.requests is not None:
                    delay = max(delay, self.requests.wait_for(1))
                if self.tokens is not None:
                    delay = max(delay, self.tokens.wait_for(1))  # tokens in debt: wait until paid off
                if delay <= 0:
                    break
                await asyncio.sleep(delay)
            if self.requests is not None:
                self.requests.level -= 1
        self.waited_s += time.monotonic() - started

    def spent(self, tokens: int) -> None:
        """A reply used `tokens` (input and output): the token bucket pays them, into debt if need be."""
        if self.tokens is not None and tokens > 0:
            self.tokens.refill()
            self.tokens.level -= tokens

    def pause(self, seconds: float) -> None:
        """The endpoint said 429: no request through this limit for `seconds`."""
        self._paused_until = max(self._paused_until, time.monotonic() + seconds)
