"""``Annotated`` dependency aliases used by the routers.

The dependencies a calculation takes are ``async`` (no thread-pool hop) and never open a
database session: :data:`ViewDep` is the in-memory catalog view of the day asked for.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.security import APIKeyHeader
from pydantic import BeforeValidator
from sqlalchemy import Engine
from sqlmodel import Session

from app.api.proxy import SSO_SCOPE_KEY, SsoIdentity
from app.catalog.live import LiveCatalog, live_catalog
from app.catalog.view import CatalogView
from app.db import get_engine
from app.models import ApiKey
from app.models.scenario import Owner
from app.render import draw_pool
from app.render.gate import CPU, RenderGate, gate
from app.settings import Settings, get_settings


async def settings() -> Settings:
    """The process-wide settings (tests override this dependency)."""
    return get_settings()


async def engine() -> Engine:
    """The process-wide engine (tests override this dependency with their own database's)."""
    return get_engine()


SettingsDep = Annotated[Settings, Depends(settings)]


async def render_gate(settings: SettingsDep) -> RenderGate:
    """The worker's bound on charts, reports, sweeps, cash flows and fleet plans
    (:mod:`app.render.gate`)."""
    return gate(settings.render_max_running, settings.render_max_waiting)


RenderGateDep = Annotated[RenderGate, Depends(render_gate)]


def cpu_gate(settings: Settings) -> RenderGate:
    """The worker's bound on per-request CPU work that is not a chart (chat questions, dated
    views, compares, import parsing: :data:`app.render.gate.CPU`)."""
    return gate(settings.render_max_running, settings.render_max_waiting, CPU)


async def cpu_gate_dep(settings: SettingsDep) -> RenderGate:
    """:func:`cpu_gate` as a dependency."""
    return cpu_gate(settings)


CpuGateDep = Annotated[RenderGate, Depends(cpu_gate_dep)]
# Writes run their own transactions (BEGIN IMMEDIATE on SQLite) on the engine.
EngineDep = Annotated[Engine, Depends(engine)]


def session(engine: EngineDep) -> Iterator[Session]:
    """A session per request, for the few routes that read or write rows the catalog view
    does not hold (API keys, saved scenarios); commits happen in service functions."""
    with Session(engine) as s:
        yield s


SessionDep = Annotated[Session, Depends(session)]

API_KEY = APIKeyHeader(
    name="X-API-Key",
    auto_error=False,
    description="An API key from `gpucost keys create` (`gpc_<id>_<secret>`).",
)


def api_key(scope: str) -> Callable[..., ApiKey]:
    """A dependency: the caller's key row (read, then detached) when its ``X-API-Key`` is
    valid and has ``scope``; 401 without a valid key, 403 without the scope. It runs before
    the body is validated, so a request without a valid key is a 401 whatever its body."""

    def check(engine: EngineDep, key: Annotated[str | None, Depends(API_KEY)]) -> ApiKey:
        from app.store import keys

        # A session of its own, closed before the route runs: a request holds at most one
        # pooled connection at a time (with the key's session still open while the write
        # opens another, a keyed scenario create would hold two, and 12 concurrent creates
        # would empty a worker's pool of 5 + 5).
        with Session(engine) as own:
            return keys.authenticate(own, key, scope)

    check.__name__ = f"api_key_{scope}"
    return check


ScenariosKey = Annotated[ApiKey, Depends(api_key("scenarios"))]


def scenario_owner(
    request: Request, engine: EngineDep, key: Annotated[str | None, Depends(API_KEY)]
) -> Owner:
    """A dependency: who saves, lists and deletes scenarios. An ``X-API-Key`` with scope
    `scenarios` (401/403 as :func:`api_key`); without one, the user the institution's proxy
    signed in (:mod:`app.api.proxy`: only from a trusted proxy, only with single sign-on on),
    with the labs their groups map to; with neither, 401."""
    from app.store import keys

    identity = request.scope.get(SSO_SCOPE_KEY)
    if key is None and isinstance(identity, SsoIdentity):
        return Owner(user=identity.user, labs=identity.labs)
    with Session(engine) as own:
        row = keys.authenticate(own, key, "scenarios")
    return Owner(key_id=row.id)


ScenarioOwner = Annotated[Owner, Depends(scenario_owner)]

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _iso_date_only(value: object) -> object:
    """Refuse what lax date parsing would accept besides `YYYY-MM-DD` (e.g. `0`, a Unix
    timestamp)."""
    if isinstance(value, str) and not _ISO_DATE.fullmatch(value):
        raise ValueError("give a date as YYYY-MM-DD")
    return value


AsOf = Annotated[
    dt.date | None,
    BeforeValidator(_iso_date_only),
    Query(
        description="Answer with the catalog prices in force on this day (ISO 8601 "
        "`YYYY-MM-DD`), from the price history: offers and barebones not yet priced that day "
        "are absent. Default: the current prices.",
        examples=["2025-06-30"],
    ),
]


def view_dependencies(
    engine_of: Callable[[], Engine],
) -> tuple[Callable[..., Awaitable[CatalogView]], Callable[[], Awaitable[CatalogView]]]:
    """The two catalog-view dependencies over the database of ``engine_of()``: ``view`` (the
    prices of the request's ``as_of``, else current) and ``current_view``. Each is one
    dependency level with no sub-dependency: FastAPI resolves every level on every request,
    at a cost each (see docs/operations.md). Tests build a pair for their own database and
    override both."""

    def live() -> LiveCatalog:
        return live_catalog(engine_of(), get_settings().catalog_poll_interval_s)

    async def view(as_of: AsOf = None) -> CatalogView:
        """The catalog view a request reads: the current one, or that of ``as_of``. Only the
        first request of a process (before start-up read the catalog) waits for the
        database, in a worker thread."""
        catalog = live()
        if not catalog.ready:
            await run_in_threadpool(lambda: catalog.view)
        found = catalog.cached_on(as_of)
        if found is not None:
            return found
        # A dated view to build (~25 ms of Python): in the thread pool, through the worker's
        # bound on such work (503 past it), never on the event loop.
        return await cpu_gate(get_settings()).run(catalog.view_on, as_of)

    async def current_view() -> CatalogView:
        """The catalog view with the current prices (for routes that take no ``as_of``)."""
        catalog = live()
        if not catalog.ready:
            await run_in_threadpool(lambda: catalog.view)
        return catalog.view

    return view, current_view


view, current_view = view_dependencies(get_engine)
ViewDep = Annotated[CatalogView, Depends(view)]
CurrentViewDep = Annotated[CatalogView, Depends(current_view)]

T = TypeVar("T")


@dataclass(frozen=True)
class Heavy:
    """What a heavy operation (chart, report, sweep, fleet plan, cash flow) needs: the
    request's catalog view, the settings and the worker's render gate."""

    view: CatalogView
    settings: Settings
    gate: RenderGate

    async def run(self, fn: Callable[..., T], req: Any, *rest: Any) -> T:
        """``fn(view, req, settings, *rest)`` through the render gate: in a worker thread
        when a slot is free, :class:`~app.render.gate.Busy` (503) at once when it is full."""
        return await self.gate.run(fn, self.view, req, self.settings, *rest)

    async def run_apart(
        self,
        apart: Callable[..., T],
        fn: Callable[..., T],
        req: Any,
        *rest: Any,
        check: Callable[..., object] | None = None,
    ) -> T:
        """Like :meth:`run`, but in a drawing process when the worker has them
        (``apart(revision, as_of, req, settings, *rest)``, which reads the catalog there:
        :mod:`app.render.apart`), so the work's CPU and memory stay out of the worker; else
        ``fn`` in a thread as :meth:`run` does. ``check(view, req, settings)`` (the work's
        resolve step, milliseconds) runs here first, so that a request it refuses (an unknown
        name: 404; 422) is answered at once instead of after a drawing process's turn."""
        pool = draw_pool.installed()
        if pool is None:
            return await self.run(fn, req, *rest)
        if check is not None:
            await cpu_gate(self.settings).run(check, self.view, req, self.settings)
        args = (self.view.revision, self.view.as_of, req, self.settings, *rest)
        return await self.gate.run(pool.compute, apart, *args)


async def heavy(view: ViewDep, settings: SettingsDep, gate: RenderGateDep) -> Heavy:
    """The :class:`Heavy` context of a request."""
    return Heavy(view, settings, gate)


HeavyDep = Annotated[Heavy, Depends(heavy)]
