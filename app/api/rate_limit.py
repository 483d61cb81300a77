"""Requests per caller: a pure ASGI middleware over the `limits` library.

A caller is its API key when the request carries a valid one (``X-API-Key``; any scope),
else its client address (uvicorn's ``--proxy-headers`` puts the real address there behind a
proxy); :meth:`RateLimits.check` says in which order (a caller is counted before anything
about it is remembered, and a malformed key is never looked up). Each caller has two budgets (settings ``rate_limit_*``): every request counts
against the first; charts, reports, plans, cash flows, compares, sweeps and imports (the
heavy operations, up to ~0.5 s of CPU each, and LLM estimates) also against the second. Past either, the answer
is 429 problem+json with ``Retry-After``; every counted answer carries ``X-RateLimit-Limit``,
``X-RateLimit-Remaining`` and ``X-RateLimit-Reset`` (Unix time) for the caller's general
budget.

Counters use the sliding-window-counter strategy (a weighted sum of this and the previous
window: no burst of twice the limit at a window's edge, at the cost of two counters per
caller), counted by `limits`. They live in the worker's memory by default (`limits`'
``MemoryStorage``), so a limit holds per worker; with ``GPUCOST_REDIS_URL`` they live in
Redis and hold across every worker and instance; while Redis fails, each worker counts in
its own memory (fail open, logged, counted and reported degraded: :meth:`RateLimits.count`).
In memory their number is bounded
(``rate_limit_max_entries``): while the table is full, callers are counted together as
``address:overflow``, and each counter's key is short (an address of at most 45 characters
or a key id of 12), so the table's bytes are bounded too.

The edge (:mod:`app.api.edge`) calls :meth:`Limiter.check` once per request; this module
holds no ASGI layer of its own.

Not counted: the probes (``/healthz``, ``/readyz``, ``/metrics``) and ``/slack/commands``,
which is signed (an unsigned call is refused before any work) and arrives from Slack's shared
addresses, so an address limit would throttle a whole workspace. ``/mcp`` is counted per
caller like any request, and each tool call again as the REST request it is sent as.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import time
from collections.abc import Sized
from dataclasses import dataclass
from typing import Any

from cachetools import TTLCache
from fastapi.concurrency import run_in_threadpool
from limits import RateLimitItem, parse_many
from limits.errors import StorageError
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import SlidingWindowCounterRateLimiter
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import Response

from app.api import problems
from app.api.middleware import PROBES, Scope
from app.observability import DEPENDENCY_ERRORS, set_degraded
from app.settings import Settings, get_settings
from app.store import keys

log = logging.getLogger("gpucost.rate_limits")

# After Redis fails, seconds before it is tried again (meanwhile counts stay in memory).
REDIS_RETRY_S = 5.0

# The longest text of an IP address (an IPv4-mapped IPv6 address), characters.
MAX_HOST_CHARS = 45

# /mcp is counted like any request (a tools/list costs 3-7 ms of CPU); each tool call is then
# also counted as the REST request it is sent as (app.integrations.mcp_server), as the same
# caller: a tool call spends two of the general budget, a heavy one one heavy unit.
EXEMPT = PROBES | {"/slack/commands"}
_HEAVY_PREFIXES = (
    "/v1/charts/",
    "/v1/plan",
    "/v1/cash-flow",
    "/v1/compare",
    "/v1/break-even/sweep",
    "/v1/admin/imports",
    "/v1/llm/estimate",
)


# The calculator pages that run a heavy operation (the page of /v1/compare, /v1/plan,
# /v1/llm/estimate), and saving a page's answer (a write by a caller without a key).
_HEAVY_PAGES = frozenset({"/compare", "/plan", "/llm", "/s"})


def is_heavy(path: str) -> bool:
    """Whether ``path`` is a heavy operation (counted against the heavy budget too)."""
    return (
        path.startswith(_HEAVY_PREFIXES)
        or path in _HEAVY_PAGES
        or (path.startswith("/v1/scenarios/") and path.endswith("/report"))
    )


@dataclass(frozen=True)
class Budget:
    """A kind of caller's limits: ``general`` for every request, ``heavy`` for heavy ones."""

    general: list[RateLimitItem]
    heavy: list[RateLimitItem]
    kind: str = "general"  # the counters' namespace for the general limits


@dataclass(frozen=True)
class Verdict:
    """The outcome of counting one request. ``item`` is the limit it broke when ``refused``,
    else the caller's first general limit; ``heavy`` says whether ``item`` is a heavy-budget
    limit; ``remaining`` (requests) and ``reset_epoch_s`` (Unix time, s) are that limit's
    window, for the ``X-RateLimit-*`` headers."""

    item: RateLimitItem
    heavy: bool
    refused: bool
    remaining: int
    reset_epoch_s: float


class RateLimits:
    """The counters and budgets of one process (see the module docstring)."""

    def __init__(self, settings: Settings) -> None:
        self.shared = settings.redis_url is not None
        uri = settings.redis_url or "memory://"
        storage = storage_from_string(uri, **self._options(uri))
        assert isinstance(storage, Storage)  # memory:// and redis:// are synchronous stores
        self.limiter = SlidingWindowCounterRateLimiter(storage)
        # Where counts go while Redis fails: this worker's memory (fail open, still limited).
        memory = storage if not self.shared else MemoryStorage()
        self.fallback = SlidingWindowCounterRateLimiter(memory)
        # Until when (monotonic s) Redis is skipped after a failure, and why it failed.
        self.redis_down_until = 0.0
        # The in-memory counters (limits' MemoryStorage: key -> count), to bound their number.
        self.memory_keys: Sized = getattr(memory, "storage", ())
        # Addresses counted within the sliding window's span (two windows): they keep their
        # own budget while the table is full (:meth:`_address`). At most half the table's
        # bound (a caller has two counters per limit at least); never evicted to make room.
        window_s = max(i.get_expiry() for i in parse_many(settings.rate_limit_anonymous))
        self._seen: TTLCache[str, bool] = TTLCache(
            maxsize=max(1, settings.rate_limit_max_entries // 2), ttl=2 * window_s
        )
        self.max_entries = settings.rate_limit_max_entries
        self.anonymous = Budget(
            parse_many(settings.rate_limit_anonymous),
            parse_many(settings.rate_limit_anonymous_heavy),
        )
        self.keyed = Budget(
            parse_many(settings.rate_limit_key), parse_many(settings.rate_limit_key_heavy)
        )
        # Key lookups per address (a key not seen in the last minute), counted on their own.
        self.lookups = Budget(self.anonymous.general, [], "lookup")
        # Well-formed key (60 characters) -> its id when valid, None when not, remembered
        # only after the request was counted; checked again after 60 s, so a revoked key
        # loses its own budget within a minute (it loses access at once).
        self._key_ids: TTLCache[str, str | None] = TTLCache(maxsize=10_000, ttl=60)

    @staticmethod
    def _options(uri: str) -> dict[str, Any]:
        # Fail fast (and answer) when Redis is slow or gone, rather than hang the request.
        # Its errors arrive as limits' StorageError (wrap_exceptions), whatever the driver.
        if uri.startswith("memory://"):
            return {}
        return {"socket_timeout": 0.5, "socket_connect_timeout": 0.5, "wrap_exceptions": True}

    def _address(self, scope: Scope) -> str:
        """``address:<host>``: an IPv6 client by its /64 (the block one subscriber or host is
        given, RFC 6177: counting each address would give one machine 2^64 budgets), any
        other by its address; a host longer than an IPv6 address's text (45 characters),
        which only a misbehaving proxy could send, is ``address:malformed``. While the
        in-memory table is full (``rate_limit_max_entries``), a caller not counted in its
        current window is ``address:overflow``; one already counted keeps its own budget."""
        client = scope.get("client")
        host = client[0] if client else "unknown"
        if len(host) > MAX_HOST_CHARS:
            host = "malformed"
        elif ":" in host:
            host = _ipv6_block(host)
        caller = f"address:{host}"
        if caller in self._seen:
            return caller
        if len(self._seen) >= self._seen.maxsize:
            self._seen.expire()  # callers whose windows have passed free their places
        if len(self.memory_keys) >= self.max_entries or len(self._seen) >= self._seen.maxsize:
            return "address:overflow"
        self._seen[caller] = True
        return caller

    async def check(
        self, scope: Scope, key: str | None, heavy: bool
    ) -> tuple[str, Budget, Verdict]:
        """Count one request: ``(caller, budget, verdict)``.

        The caller is counted before anything is remembered about it: a key that does not
        have a key's form (:func:`app.store.keys.well_formed`) is never looked up nor kept,
        and the request counts against its address; a well-formed key not seen in the last
        minute is first counted as a key lookup from its address (a budget of its own, the
        size of the address's general one, so a lab's tool behind a busy address still gets
        its key's budget), refused with 429 past it without a lookup, else looked up and
        only then remembered (valid or not, for 60 s; at most 10,000 keys of 60 characters);
        a valid key's requests count against the key's own budget, any other's against the
        address's."""
        address = self._address(scope)
        key_id: str | None = None
        if key and keys.well_formed(key):
            key_id = self._key_ids.get(key, "")
            if key_id == "":
                lookup = await self._count(address, self.lookups, False)
                if lookup.refused:
                    return address, self.anonymous, lookup
                try:
                    key_id = await run_in_threadpool(_lookup_key_id, scope["app"], key)
                except SQLAlchemyError:
                    key_id = None  # the database is down: by address, nothing remembered
                else:
                    self._key_ids[key] = key_id
        if not key_id:
            return address, self.anonymous, await self._count(address, self.anonymous, heavy)
        caller = f"key:{key_id}"
        return caller, self.keyed, await self._count(caller, self.keyed, heavy)

    async def _count(self, caller: str, budget: Budget, heavy: bool) -> Verdict:
        if self.shared:
            return await run_in_threadpool(self.count, caller, budget, heavy)
        return self.count(caller, budget, heavy)

    @staticmethod
    def items(budget: Budget, heavy: bool) -> list[tuple[str, RateLimitItem]]:
        """The (namespace, limit) pairs one request of ``budget`` counts against."""
        items = [(budget.kind, item) for item in budget.general]
        if heavy:
            items += [("heavy", item) for item in budget.heavy]
        return items

    def count(self, caller: str, budget: Budget, heavy: bool) -> Verdict:
        """Count one request of ``caller``: in memory (no I/O), or in Redis (blocking, a
        round trip per limit). When Redis fails, the request is counted in this worker's
        memory instead (fail open: each worker still holds its own limits), the failure is
        logged and counted (``gpucost_dependency_errors_total{dependency="redis"}``), the
        worker reports ``rate_limits`` degraded in ``/readyz``, and Redis is tried again
        after :data:`REDIS_RETRY_S` (not on every request: each try can wait a socket
        timeout)."""
        if self.shared and time.monotonic() >= self.redis_down_until:
            try:
                verdict = _count_with(self.limiter, caller, budget, heavy)
            except StorageError as exc:
                self.redis_down_until = time.monotonic() + REDIS_RETRY_S
                log.warning(
                    "rate limits: Redis failed (%s); counting in this worker's memory for %.0f s",
                    exc.storage_error,
                    REDIS_RETRY_S,
                )
                set_degraded(
                    "rate_limits",
                    f"Redis unreachable ({type(exc.storage_error).__name__}): limits are "
                    "counted per worker",
                )
            else:
                if self.redis_down_until:
                    self.redis_down_until = 0.0
                    set_degraded("rate_limits", None)
                    log.warning("rate limits: Redis answers again")
                return verdict
        if self.shared:
            DEPENDENCY_ERRORS.labels("redis").inc()
        return _count_with(self.fallback, caller, budget, heavy)


def _count_with(
    limiter: SlidingWindowCounterRateLimiter, caller: str, budget: Budget, heavy: bool
) -> Verdict:
    """Count one request of ``caller`` against ``budget`` with ``limiter``'s counters."""
    for kind, item in RateLimits.items(budget, heavy):
        if not limiter.hit(item, kind, caller):
            stats = limiter.get_window_stats(item, kind, caller)
            return Verdict(item, kind == "heavy", True, 0, stats.reset_time)
    first = budget.general[0]
    stats = limiter.get_window_stats(first, budget.kind, caller)
    return Verdict(first, False, False, stats.remaining, stats.reset_time)


def _ipv6_block(host: str) -> str:
    """The /64 of an IPv6 address (``2001:db8:1:2::/64``), the IPv4 address of an
    IPv4-mapped one, ``host`` itself when it is no address."""
    try:
        ip = ipaddress.IPv6Address(host)
    except ValueError:
        return host
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.IPv6Network((ip, 64), strict=False))


def _lookup_key_id(app: Any, key: str) -> str | None:
    """The id of ``key`` if valid, read from the app's database (its ``engine`` dependency,
    so a test's database override holds here too)."""
    from sqlmodel import Session

    from app.api import deps
    from app.db import get_engine

    override = app.dependency_overrides.get(deps.engine)
    with Session(override() if override else get_engine()) as session:
        return keys.valid_key_id(session, key)


def _per(item: RateLimitItem) -> str:
    n = item.multiples
    return f"{item.GRANULARITY.name}" if n == 1 else f"{n} {item.GRANULARITY.name}s"


Headers = list[tuple[bytes, bytes]]


class Limiter:
    """The rate limits as the edge uses them: :meth:`check` per request. The counters are
    made on the first request (from the settings of that moment) and remade when the
    settings object changes (as in tests)."""

    def __init__(self) -> None:
        self._limits: RateLimits | None = None
        self._settings: Settings | None = None

    def limits(self, settings: Settings) -> RateLimits:
        """This process's counters for ``settings``."""
        if self._limits is None or settings is not self._settings:
            self._limits, self._settings = RateLimits(settings), settings
        return self._limits

    async def check(self, scope: Scope, key: str | None) -> tuple[Headers, Response | None]:
        """Count the request of ``scope`` (an HTTP scope; ``key``: its ``X-API-Key``, if
        any): the ``X-RateLimit-*`` headers for its answer, and the 429 problem (with
        ``Retry-After``) to send instead when a limit is spent.
        ``([], None)`` with limits turned off. The edge does not call it for an
        :data:`EXEMPT` path."""
        settings = get_settings()
        if not settings.rate_limits_enabled:
            return [], None
        limits = self.limits(settings)
        caller, _, verdict = await limits.check(scope, key, is_heavy(scope["path"]))
        headers = [
            (b"x-ratelimit-limit", str(verdict.item.amount).encode()),
            (b"x-ratelimit-remaining", str(verdict.remaining).encode()),
            (b"x-ratelimit-reset", str(math.ceil(verdict.reset_epoch_s)).encode()),
        ]
        if verdict.refused:
            return headers, _refusal(scope, verdict, caller)
        return headers, None


def _refusal(scope: Scope, verdict: Verdict, caller: str) -> Response:
    """The 429 problem for a request refused by ``verdict`` (without the ``X-RateLimit-*``
    headers: the edge adds them to every counted answer)."""
    item = verdict.item
    retry_after_s = max(1, math.ceil(verdict.reset_epoch_s - time.time()))
    who = "this API key" if caller.startswith("key:") else "this address"
    what = "heavy requests (charts, reports, plans, compares)" if verdict.heavy else "requests"
    detail = (
        f"more than {item.amount} {what} per {_per(item)} from {who}; retry in {retry_after_s} s"
    )
    response = problems.problem(429, "rate-limited", "Too many requests", detail, Request(scope))
    response.headers["Retry-After"] = str(retry_after_s)
    return response
