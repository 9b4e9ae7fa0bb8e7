"""One model role's endpoint: requests in either API style, retries, usage.

`Endpoint.complete` sends a conversation (chat-style messages plus function
tools) to an OpenAI-compatible server with the official ``openai`` client, in
the ``chat`` (chat completions) or ``responses`` style, and returns a `Reply`
in one shape for both. Rate limits, 5xx, timeouts, connection failures and
malformed responses are retried with exponential backoff, honouring
``retry-after``; what still fails raises `EndpointError` with the role as its
stage, so it is a system error and never the agent's failure. A circuit
breaker stops calling an endpoint that failed `breaker_failures` requests in a
row, for `breaker_cooldown_s`; a request whose answer has not begun within
`first_byte_s` (or not ended within `timeout_s`) finds the endpoint hung, and a
hung endpoint is down at once: a campaign against a server that accepts
connections and never answers ends in one such wait per worker. A `RateLimit`, shared by the roles that call
the same model at the same endpoint, spaces requests and holds them all back
after a 429.

The client (and its connection pool) is shared by every attempt of a worker;
`Usage` is counted per attempt by whoever owns the conversation. With a model
cache (`cache.py`, ``--tb-cache``) an answer kept for the very same request is
read instead of asked for: no request, no retry, no rate limit; its tokens are
counted as the answer's usage (what it cost when it was asked), and apart as
``cache_hit_*`` tokens, which this run did not pay for.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from ..core.errors import EndpointError, ThinkingboxError
from .cache import ModelCache
from .config import ModelConfig
from .rate_limit import RateLimit

BACKOFF_S = 0.5  # first wait; doubles per retry
MAX_WAIT_S = 30.0  # cap on a single wait, retry-after included
KEPT_TEXTS = 64  # encoded system prompts and tool lists an endpoint remembers


@dataclass
class Usage:
    """Tokens, calls, retries and time spent by one role in one attempt."""

    model: str = ""
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    calls: int = 0
    retries: int = 0
    latency_s: float = 0.0
    # Answers read from the model cache instead of asked for (counted in the tokens above too), and their tokens.
    cache_hits: int = 0
    cache_hit_input_tokens: int = 0
    cache_hit_cached_tokens: int = 0
    cache_hit_output_tokens: int = 0
    endpoint: str | None = None  # the model and endpoint that served the role (for messages, not records)
    waiting: bool = False  # a request is in flight (the episode's time limit waits for it)
    scope: str | None = None  # the attempt whose requests these are, for the model cache's keys (not recorded)

    def as_dict(self) -> dict[str, Any]:
        """As a record keeps it; the cache's counts only when the cache answered (a run without one is as before)."""
        unrecorded = ("endpoint", "waiting", "scope") + (() if self.cache_hits else _CACHE_FIELDS)
        counts = {k: v for k, v in asdict(self).items() if k not in unrecorded}
        return {**counts, "latency_s": round(self.latency_s, 6)}


_CACHE_FIELDS = ("cache_hits", "cache_hit_input_tokens", "cache_hit_cached_tokens", "cache_hit_output_tokens")


@dataclass(frozen=True)
class ToolCallRequest:
    """A function call as the model wrote it; `arguments` is the raw JSON text."""

    id: str
    name: str
    arguments: str


@dataclass
class Reply:
    text: str | None
    tool_calls: list[ToolCallRequest] = field(default_factory=list)


class MalformedResponse(ThinkingboxError):
    """The server answered 2xx with something that is not a usable completion."""


class EndpointHung(ThinkingboxError):
    """A request got no answer within `first_byte_s` (or `timeout_s`): the endpoint accepts and never answers."""


class BreakerOpen(ThinkingboxError):
    """The circuit breaker is open: the endpoint failed `breaker_failures` requests in a row and is not called
    until its cool-down ends."""


class Endpoint:
    """A role's model behind an OpenAI-compatible API (one per worker and role)."""

    def __init__(self, config: ModelConfig, stage: str, limit: RateLimit | None = None) -> None:
        self.config, self.stage, self.limit = config, stage, limit
        self._client: Any = None  # opened on the first request, in the worker's event loop
        # The circuit breaker: consecutive failed requests, and until when the endpoint counts as down.
        self._failures = 0
        self._down_until = 0.0
        self._last_failure = ""
        self._texts: dict[tuple[Any, Any], tuple[Any, bytes]] = {}  # see `_encoded`
        cache = config.cache
        self.cache = ModelCache(cache) if cache is not None and cache.mode != "off" else None

    async def _post(self, path: str, content: bytes) -> Any:
        """The reply's JSON as parsed (`cast_to=object`): building the client's typed model of it cost about
        145 µs a reply, and `_read` takes the few fields it needs from the dicts."""
        if self._client is None:
            import openai

            # The client's aiohttp transport, not httpx's: on every request and response httpx's pool probes each
            # idle connection, which with 64 episodes in flight put 9% of a worker's CPU there, and its pure-Python
            # HTTP parsing cost more than aiohttp's. Retries are ours, so they can be counted per attempt.
            c = self.config
            self._client = openai.AsyncOpenAI(
                base_url=c.base_url,
                api_key=c.api_key(),
                # read: the longest wait for a byte, the answer's first included (aiohttp's sock_read)
                timeout=openai.Timeout(c.timeout_s, read=min(c.first_byte_s, c.timeout_s)),
                max_retries=0,
                http_client=openai.DefaultAioHttpClient(),
            )
        async with asyncio.timeout(self.config.timeout_s):  # the whole request, however slowly it trickles in
            return await self._client.post(path, cast_to=object, content=content)

    async def complete(
        self,
        system: str,
        messages: list[dict[str, Any]],
        usage: Usage,
        tools: list[dict[str, Any]] | None = None,
    ) -> Reply:
        """One model turn: `messages` are chat-style; `tools` are chat-style function tools."""
        import openai

        body = self._responses if self.config.api == "responses" else self._chat
        path, content = body(system, messages, tools or [])
        usage.model, usage.endpoint = self.config.model, self.where
        key = None
        if self.cache is not None:
            key = self.cache.key(path, content, usage.scope, usage.calls + usage.cache_hits)
            kept = self._kept(key, usage)
            if kept is not None:
                return kept
        attempt = 0
        while True:
            self._check_up(attempt)
            if self.limit is not None:
                await self.limit.acquire()
            started = time.perf_counter()
            try:
                usage.waiting = True  # the episode's time limit lets a request in flight finish
                try:
                    response = await self._post(path, content)
                finally:
                    usage.waiting = False
                before = usage.input_tokens + usage.output_tokens
                reply = self._read(response, usage)
                if self.limit is not None:
                    self.limit.spent(usage.input_tokens + usage.output_tokens - before)
                usage.latency_s += time.perf_counter() - started
                usage.calls += 1
                self._failures = 0
                if key is not None and self.cache is not None:
                    self.cache.put(key, response, self.config.model)
                return reply
            except (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError,
                    MalformedResponse, openai.APIResponseValidationError, ValueError, TimeoutError) as exc:  # fmt: skip
                # ValueError: a 2xx whose body is not JSON at all (the client's json.JSONDecodeError)
                usage.latency_s += time.perf_counter() - started
                if isinstance(exc, (openai.APITimeoutError, TimeoutError)):
                    hung = self._hung(exc)  # a retry would find the endpoint down: say why it is
                    raise EndpointError(self.stage, self._describe(hung, attempt)) from hung
                if not isinstance(exc, openai.RateLimitError):  # a 429 says the endpoint is up, only busy
                    self._failed(exc)
                if attempt >= self.config.max_retries:
                    raise EndpointError(self.stage, self._describe(exc, attempt)) from exc
                attempt += 1
                usage.retries += 1
                wait = _wait(exc, attempt)
                if self.limit is not None and isinstance(exc, openai.RateLimitError):
                    self.limit.pause(wait)  # every episode holds back, not only this one
                await asyncio.sleep(wait)
            except openai.APIStatusError as exc:  # 400, 401, 404, ...: asking again will not help
                raise EndpointError(self.stage, self._describe(exc, attempt)) from exc

    def _kept(self, key: str, usage: Usage) -> Reply | None:
        """The cache's answer to the request `key` names, counted in `usage`; None if it has none (an entry the
        reader cannot use counts as none, and is replaced by the answer asked for)."""
        assert self.cache is not None
        response = self.cache.get(key)
        if response is None:
            return None
        scratch = Usage()
        try:
            reply = self._read(response, scratch)
        except MalformedResponse:
            return None
        usage.cache_hits += 1
        usage.input_tokens += scratch.input_tokens
        usage.cached_tokens += scratch.cached_tokens
        usage.output_tokens += scratch.output_tokens
        usage.reasoning_tokens += scratch.reasoning_tokens
        usage.cache_hit_input_tokens += scratch.input_tokens
        usage.cache_hit_cached_tokens += scratch.cached_tokens
        usage.cache_hit_output_tokens += scratch.output_tokens
        return reply

    @property
    def where(self) -> str:
        """The model and endpoint, as messages name them."""
        return f"{self.config.model} at {self.config.base_url or 'the OpenAI API'}"

    def _failed(self, exc: Exception) -> None:
        self._failures += 1
        self._last_failure = f"{type(exc).__name__}: {exc}"
        if self._failures >= self.config.breaker_failures:
            self._down_until = time.monotonic() + self.config.breaker_cooldown_s

    def _hung(self, exc: Exception) -> EndpointHung:
        """A request that got no answer in time: the endpoint counts as down at once, not after more waits."""
        c = self.config
        if isinstance(exc, TimeoutError):  # ours: the whole request
            why = f"the answer did not end within timeout_s = {c.timeout_s:g} s"
        elif c.first_byte_s <= c.timeout_s:  # the client's: no byte for that long
            why = f"no answer began within first_byte_s = {c.first_byte_s:g} s (or it stalled that long)"
        else:
            why = f"no answer within timeout_s = {c.timeout_s:g} s"
        hung = EndpointHung(why + "; the endpoint counts as down")
        self._failed(hung)
        self._failures = max(self._failures, c.breaker_failures)
        self._down_until = time.monotonic() + c.breaker_cooldown_s
        return hung

    def _check_up(self, retries: int) -> None:
        """Refuse at once while the endpoint is down; after the cool-down, one request may try it again."""
        if self._failures < self.config.breaker_failures or time.monotonic() >= self._down_until:
            return
        cause = BreakerOpen(
            f"{self.stage} model {self.where} is down: {self._failures} requests in a row failed (last: "
            f"{self._last_failure}); it is not called for {self.config.breaker_cooldown_s:g} s after the last "
            f"failure, so this attempt was not run{f' (after {retries} retries)' if retries else ''}; "
            "re-run it with --tb-rerun-errors once the endpoint is back"
        )
        raise EndpointError(self.stage, str(cause)) from cause

    def _describe(self, exc: Exception, retries: int) -> str:
        after = f" after {retries} retries" if retries else ""
        return f"{self.stage} model {self.where} failed{after}: {type(exc).__name__}: {exc}"

    # Requests go through the client's plain `post` with the body as built: the typed `create` methods walk
    # every message and tool schema to transform them, which for a domain's 33 tools costs about 7.5 ms a
    # request (a third of a whole attempt's harness time), and our bodies are plain JSON already. The body is
    # sent as encoded bytes: the system prompt (the policy) and the tools are nine tenths of it and the same
    # on every request, so each is encoded once (`_encoded`) and only the conversation is encoded per request.

    def _chat(self, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> tuple[str, bytes]:
        c = self.config
        opening = b'{"role":"system","content":' + self._encoded(system, _dumps) + b"}"
        conversation = b"[" + opening + (b"," + _dumps(messages)[1:-1] if messages else b"") + b"]"
        encoded = {"messages": conversation, "tools": self._encoded(tools, _dumps) if tools else None}
        plain = {
            "model": c.model,
            **_present(
                temperature=c.temperature, top_p=c.top_p, seed=c.seed, max_completion_tokens=c.max_output_tokens
            ),
        }
        return "/chat/completions", _json_object(plain, encoded, c.extra_body)

    def _responses(self, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> tuple[str, bytes]:
        c = self.config
        plain = {
            "model": c.model,
            "input": _response_items(messages),
            "store": False,
            **_present(temperature=c.temperature, top_p=c.top_p, max_output_tokens=c.max_output_tokens),
        }
        encoded = {
            "instructions": self._encoded(system, _dumps),
            "tools": self._encoded(tools, _response_tools) if tools else None,
        }
        return "/responses", _json_object(plain, encoded, c.extra_body)

    def _encoded(self, value: Any, encode: Callable[[Any], bytes]) -> bytes:
        """`value` as JSON, encoded once and remembered: a string by its text, a list (which its caller
        sends unchanged on every request) by identity, held so that its id is not reused."""
        key = (encode, value) if isinstance(value, str) else (encode, id(value))
        held = self._texts.get(key)
        if held is None:
            if len(self._texts) >= KEPT_TEXTS:
                self._texts.clear()  # only a caller that builds its prompt or tools anew each time gets here
            held = self._texts[key] = (value, encode(value))
        return held[1]

    def _read(self, response: Any, usage: Usage) -> Reply:
        try:
            reply = _read_responses(response) if self.config.api == "responses" else _read_chat(response)
            _count(response.get("usage"), usage)
        except (AttributeError, IndexError, KeyError, TypeError) as exc:
            raise MalformedResponse(f"the response has no usable completion ({type(exc).__name__}: {exc})") from exc
        return reply

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def _present(**options: Any) -> dict[str, Any]:
    return {k: v for k, v in options.items() if v is not None}


def _dumps(value: Any) -> bytes:
    """JSON as the ``openai`` client writes a body."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def _response_tools(tools: list[dict[str, Any]]) -> bytes:
    """Chat-style function tools as the responses API takes them."""
    return _dumps([{"type": "function", "strict": False, **t["function"]} for t in tools])


def _json_object(plain: dict[str, Any], encoded: dict[str, bytes | None], extra: dict[str, Any]) -> bytes:
    """One JSON object of `plain`'s fields, `encoded`'s fields already JSON (None: left out) and `extra`'s,
    which win over both (a model config's ``extra_body``)."""
    fields = [_dumps(k) + b":" + v for k, v in encoded.items() if v is not None and k not in extra]
    rest = _dumps({**plain, **extra})[1:-1]
    return b"{" + b",".join([rest, *fields] if rest else fields) + b"}"


def _wait(exc: Exception, attempt: int) -> float:
    """Seconds before the next try: the server's retry-after if it gave one, else backoff with jitter."""
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return min(MAX_WAIT_S, max(0.0, float(value) * scale))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value) if scale == 1.0 else None
            if when is not None:
                return min(MAX_WAIT_S, max(0.0, when.timestamp() - time.time()))
    return min(MAX_WAIT_S, BACKOFF_S * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)


def _read_chat(response: dict[str, Any]) -> Reply:
    message = response["choices"][0]["message"]
    calls = [
        ToolCallRequest(c["id"], c["function"]["name"], c["function"].get("arguments") or "")
        for c in message.get("tool_calls") or []
    ]
    text = message.get("content")
    if not calls and text is None:
        raise MalformedResponse("the response has neither text nor tool calls")
    return Reply(text, calls)


def _read_responses(response: dict[str, Any]) -> Reply:
    texts: list[str] = []
    calls: list[ToolCallRequest] = []
    for item in response["output"]:
        if item["type"] == "function_call":
            calls.append(ToolCallRequest(item["call_id"], item["name"], item.get("arguments") or ""))
        elif item["type"] == "message":
            texts.extend(part["text"] for part in item["content"] if part.get("type") == "output_text")
    if not calls and not texts:
        raise MalformedResponse("the response has neither text nor function calls")
    return Reply("\n".join(texts) if texts else None, calls)


def _count(data: dict[str, Any] | None, usage: Usage) -> None:
    """Add a response's token usage; chat and responses name the same figures differently."""
    if data is None:
        return
    usage.input_tokens += data.get("prompt_tokens", data.get("input_tokens")) or 0
    usage.output_tokens += data.get("completion_tokens", data.get("output_tokens")) or 0
    inputs = data.get("prompt_tokens_details") or data.get("input_tokens_details") or {}
    outputs = data.get("completion_tokens_details") or data.get("output_tokens_details") or {}
    usage.cached_tokens += inputs.get("cached_tokens") or 0
    usage.reasoning_tokens += outputs.get("reasoning_tokens") or 0


def _response_items(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat-style messages as Responses input items."""
    items: list[dict[str, Any]] = []
    for m in messages:
        if m["role"] == "tool":
            items.append({"type": "function_call_output", "call_id": m["tool_call_id"], "output": m["content"]})
            continue
        if m.get("content"):
            items.append({"role": m["role"], "content": m["content"]})
        for c in m.get("tool_calls") or []:
            f = c["function"]
            items.append({"type": "function_call", "call_id": c["id"], "name": f["name"], "arguments": f["arguments"]})
    return items


def parse_arguments(raw: str) -> dict[str, Any]:
    """A tool call's JSON arguments as a dict; ValueError with the reason when they are not one."""
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError as exc:
        raise ValueError(f"the arguments are not valid JSON ({exc.msg} at character {exc.pos})") from None
    if not isinstance(value, dict):
        raise ValueError(f"the arguments must be a JSON object, got {type(value).__name__}")
    return value
