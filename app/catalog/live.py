"""The live catalog of one database: its current :class:`~app.catalog.view.CatalogView`,
swapped atomically when the catalog revision moves, and a small cache of dated views.

Requests never query the database for the catalog. One daemon thread per process (the
*poller*) reads each live catalog's one-row revision counter every
``catalog_poll_interval_s`` and, when it moved (an admin write or an import in any process),
reads the new revision and swaps it in; a write in this process calls :meth:`written` to
swap at once. While the database is down the last view keeps answering.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import datetime as dt
import gc
import logging
import os
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Iterator

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from app.catalog.dated import DatedViews
from app.catalog.read import current_revision, read_view
from app.catalog.view import CatalogView
from app.errors import CatalogUnavailable
from app.observability import (
    CATALOG_REVISION,
    DEPENDENCY_ERRORS,
    SNAPSHOT_BUILDS,
    set_degraded,
)

log = logging.getLogger("gpucost.catalog")

# Dated views kept per database, least recently used dropped first. A view is kept per
# *price change* (the last day on or before the day asked for on which any price in the
# history changed: every day from it to the next change has the same prices), not per day,
# and serves every day of its span (a copy with its ``as_of`` set, ~µs). A dated view shares
# every row whose prices that day are its current ones, so the shipped catalog's 48 price-change
# days make 48 views that share most of their rows (their memory: docs/operations.md): 64
# keep a catalog's whole history, and bound the memory of a larger one.
DATED_VIEWS_KEPT = 64


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a view is read. A read makes objects by the
    hundred thousand (a 60,000-offer catalog: ~6 s), and each full collection it sets off
    scans all of them again, holding the interpreter lock: ``/healthz`` would wait up to
    0.9 s at a time (``scripts/bench_import.py --http``). Reference counting still frees
    everything else meanwhile; the collector runs as usual after the read."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def freeze_heap() -> None:
    """Move every object alive now into the cyclic collector's permanent generation
    (:func:`gc.freeze`), after a full collection, so later full collections skip it. The
    catalog view and the imported modules are ~150,000 objects that live as long as the
    process: each full collection scanned them all, holding the interpreter lock ~0.16 s
    (0.3 s beside two busy processes), and ``/healthz`` waited behind it under a flood.
    A view holds no reference cycles, so reference counting still frees a replaced one.
    Called once the worker has started (:func:`app.main.lifespan`)."""
    gc.collect()
    gc.freeze()


def _freeze_new_view() -> None:
    """After a refresh in a process that froze its heap (:func:`freeze_heap`): the young
    generations collected (cheap: they exclude the old one), then the new view frozen too."""
    if gc.get_freeze_count():
        gc.collect(1)
        gc.freeze()


class LiveCatalog:
    """The current view of the catalog in ``engine``'s database, and its dated views."""

    def __init__(self, engine: Engine) -> None:
        self._engine = weakref.ref(engine)
        self._lock = threading.Lock()
        self._refreshing = threading.Lock()
        self._view: CatalogView | None = None
        self._dated: OrderedDict[tuple[int, dt.date | None], CatalogView] = OrderedDict()
        # The current view's price-change days, sorted (computed once per revision).
        self._changes: tuple[int, list[dt.date]] = (-1, [])
        # What builds the current view's dated views (its dated rows, shared between them).
        self._builder: DatedViews | None = None
        # The newest revision, when it could not be built, and why (read again only once
        # the revision moves: not on every poll).
        self._broken: tuple[int | None, str] | None = None
        # Fit the depreciation curves as each view is read (a server: a revision whose fit
        # fails is kept out like any other that cannot be built); a one-question command
        # turns it off and fits them only if its answer reads a resale value.
        self.eager_curves = True

    @property
    def ready(self) -> bool:
        """Whether a view has been read (requests then never wait for the database)."""
        return self._view is not None

    @property
    def view(self) -> CatalogView:
        """The current view; read from the database on first use (blocking)."""
        view = self._view
        if view is None:
            self.refresh(force=True)
            view = self._view
        if view is None:  # the engine is gone, or the newest revision cannot be built
            raise CatalogUnavailable(self._broken[1] if self._broken else "no catalog view")
        return view

    def _change_day(self, base: CatalogView, day: dt.date) -> dt.date | None:
        """The last day on or before ``day`` on which a price of ``base``'s history changed
        (None: before the first price)."""
        revision, days = self._changes
        if revision != base.revision:
            days = sorted({point[0] for points in base.history.values() for point in points})
            self._changes = (base.revision, days)
        i = bisect.bisect_right(days, day)
        return days[i - 1] if i else None

    def cached_on(self, day: dt.date | None) -> CatalogView | None:
        """The view of ``day`` if it needs no building (the current one, or a dated view of
        the same prices in the cache), else None: :meth:`view_on` would build it."""
        base = self.view
        if day is None:
            return base
        key = (base.revision, self._change_day(base, day))
        with self._lock:  # move_to_end and popitem must not interleave
            found = self._dated.get(key)
            if found is not None:
                self._dated.move_to_end(key)
        if found is None or found.as_of == day:
            return found
        return dataclasses.replace(found, as_of=day)  # same prices, its own day

    def view_on(self, day: dt.date | None) -> CatalogView:
        """The view of ``day`` (None: the current prices), from the bounded cache (built,
        blocking, when it is not there: ~2 ms on the shipped catalog, the first of a revision
        ~10 ms more to sort its rows' price changes)."""
        found = self.cached_on(day)
        if found is not None:
            return found
        assert day is not None
        base = self.view
        builder = self._builder
        if builder is None or builder.base is not base:
            builder = self._builder = DatedViews(base)
        built = builder.on(day)
        SNAPSHOT_BUILDS.labels("dated").inc()
        with self._lock:
            self._dated[(base.revision, self._change_day(base, day))] = built
            while len(self._dated) > DATED_VIEWS_KEPT:
                self._dated.popitem(last=False)
        return built

    def refresh(self, *, force: bool = False) -> bool:
        """Read the revision counter and, if it moved (or with ``force`` and no view yet),
        read the new revision and swap it in. Returns whether the view changed. A revision
        that cannot be built is logged, counted and reported degraded, and the last good view
        keeps answering. Raises the database's error, or :class:`CatalogUnavailable` for an
        unbuildable revision, only when there is no view to keep answering with."""
        engine = self._engine()
        if engine is None:
            return False
        # One read at a time: the poller and a write in this process both notice a new
        # revision, and a second read of a large catalog would double seconds of Python
        # (60,000 imported offers: ~6 s) holding the interpreter lock the event loop needs.
        with self._refreshing:
            return self._refresh(engine)

    def _refresh(self, engine: Engine) -> bool:
        revision: int | None = None
        try:
            with Session(engine) as session:
                revision = current_revision(session)
                current = self._view
                if current is not None and current.revision == revision:
                    return False
                if self._broken is not None and self._broken[0] == revision:
                    return self._still_broken()
                with _collector_paused():
                    new = read_view(session)
                    if self.eager_curves:  # a fit that fails keeps the revision out, as before
                        new.curves  # noqa: B018
        except SQLAlchemyError:
            if self._view is None:
                raise
            log.warning("catalog revision check failed; the last view keeps answering")
            return False
        except Exception as exc:  # noqa: BLE001 - a revision that cannot be built is kept out
            self._broken = (revision, f"catalog revision {revision} cannot be built: {exc}")
            log.error("%s", self._broken[1], exc_info=True)
            DEPENDENCY_ERRORS.labels("catalog").inc()
            return self._still_broken()
        with self._lock:
            self._view = new
            self._dated.clear()
            self._builder = None
            self._broken = None
        _freeze_new_view()
        set_degraded("catalog", None)
        SNAPSHOT_BUILDS.labels("current").inc()
        CATALOG_REVISION.set(new.revision)
        return True

    def _still_broken(self) -> bool:
        """The newest revision cannot be built (``self._broken``, tried once per revision):
        the last good view keeps answering and ``/readyz`` says so; without one,
        :class:`CatalogUnavailable` (503)."""
        assert self._broken is not None
        reason = self._broken[1]
        if self._view is None:
            raise CatalogUnavailable(reason)
        set_degraded(
            "catalog", f"{reason}; revision {self._view.revision} (the last good one) answers"
        )
        return False

    def written(self) -> None:
        """Call after committing a catalog write: swap in the new revision now."""
        self.refresh()


class _Poller:
    """One daemon thread per process that refreshes every live catalog in turn."""

    def __init__(self) -> None:
        self.catalogs: weakref.WeakValueDictionary[int, LiveCatalog] = weakref.WeakValueDictionary()
        self.interval_s = 0.5
        self._pid: int | None = None
        self._lock = threading.Lock()

    def watch(self, catalog: LiveCatalog, interval_s: float) -> None:
        """Poll ``catalog`` from now on, every ``interval_s`` (the smallest asked for)."""
        with self._lock:
            self.catalogs[id(catalog)] = catalog
            self.interval_s = min(self.interval_s, interval_s) if self._pid else interval_s
            if self._pid != os.getpid():  # first use in this process (or after a fork)
                self._pid = os.getpid()
                threading.Thread(target=self._run, name="catalog-poller", daemon=True).start()

    def forget(self, catalog: LiveCatalog) -> None:
        """Poll ``catalog`` no more."""
        with self._lock:
            self.catalogs.pop(id(catalog), None)

    def _run(self) -> None:
        while True:
            time.sleep(self.interval_s)
            for catalog in list(self.catalogs.values()):
                if catalog.ready:
                    try:
                        catalog.refresh()
                    except Exception:  # pragma: no cover - never let the poller die
                        log.exception("catalog refresh failed")


_poller = _Poller()
_catalogs: weakref.WeakKeyDictionary[Engine, LiveCatalog] = weakref.WeakKeyDictionary()
_registry_lock = threading.Lock()


def live_catalog(engine: Engine, poll_interval_s: float = 0.5) -> LiveCatalog:
    """The live catalog of ``engine``'s database (one per engine and process), polled for
    revisions every ``poll_interval_s`` (0: never; writes in this process still swap)."""
    found = _catalogs.get(engine)
    if found is not None:
        return found
    with _registry_lock:
        found = _catalogs.get(engine)
        if found is None:
            found = _catalogs[engine] = LiveCatalog(engine)
            if poll_interval_s > 0:
                _poller.watch(found, poll_interval_s)
    return found


def forget_catalog(engine: Engine) -> None:
    """Stop keeping and polling the live catalog of ``engine`` (if any): call it before the
    engine's database goes away (a test's dropped database, a closed tenant), else the
    poller keeps asking a database that no longer exists every ``catalog_poll_interval_s``
    and logs each failure for the rest of the process. The next :func:`live_catalog` for
    the engine starts afresh."""
    with _registry_lock:
        found = _catalogs.pop(engine, None)
    if found is not None:
        _poller.forget(found)


def catalog_written(engine: Engine) -> None:
    """After a committed catalog write on ``engine``: its live catalog (if any) swaps now."""
    found = _catalogs.get(engine)
    if found is not None:
        found.written()
