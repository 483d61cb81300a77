"""An in-memory, read-only copy of the catalog as NumPy arrays, for calculations over every
option at once (``/v1/compare``).

Each process holds one :class:`Snapshot`. Before using it, a request reads the one-row
``catalog_revision`` counter (a primary-key lookup); when another process or command changed
the catalog the counter has moved and the snapshot is rebuilt, once, under a lock. The
snapshot is never mutated after it is built, so requests share it without locking.

A read for a past day (``as_of``) uses a *dated view*: the same snapshot with every price
replaced by the one in force that day (from the ``price_point`` history), and without the
offers and barebones that had no price yet. Views are cached per (revision, day).
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

import numpy as np
from sqlalchemy import Engine
from sqlalchemy.engine import URL
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as SATimeoutError
from sqlmodel import Session, select

from app.catalog.resolve import NameIndex
from app.catalog.writes import column_value
from app.models import (
    Barebone,
    Benchmark,
    BenchmarkResult,
    CatalogRevision,
    CloudOffer,
    Gpu,
    PricePoint,
    ProviderInfo,
    Region,
    UtilizationProfile,
)
from app.models.history import PRICE_FIELDS
from app.observability import CATALOG_REVISION, SNAPSHOT_BUILDS
from app.settings import get_settings

SECONDS_PER_HOUR = 3600.0
SPOT_MODELS = ("spot", "interruptible")


@dataclass(frozen=True)
class OfferArrays:
    """Every cloud offer, one element each (see :class:`app.models.CloudOffer` for units).

    ``pue`` is the offer region's PUE, else its provider's; ``carbon_intensity_g_per_kwh``
    is the offer region's, NaN when the offer has no catalog region (the request's region or
    the default applies). ``free`` marks plans with no price and no fee (Colab Free).
    ``family`` numbers each (provider, instance type, pricing model): the same offer in
    other regions shares it."""

    offers: tuple[CloudOffer, ...]
    gpu_index: np.ndarray
    gpu_count: np.ndarray
    price_usd_per_hour: np.ndarray
    monthly_fee_usd: np.ndarray
    included_hours_per_month: np.ndarray
    billing_increment_h: np.ndarray
    billing_minimum_h: np.ndarray
    pue: np.ndarray
    carbon_intensity_g_per_kwh: np.ndarray
    provider: np.ndarray
    pricing_model: np.ndarray
    region: np.ndarray
    spot: np.ndarray
    free: np.ndarray
    family: np.ndarray


@dataclass(frozen=True)
class Build:
    """A desktop assembled from a catalog barebone and ``gpu_count`` catalog GPUs."""

    barebone: Barebone
    gpu: Gpu
    gpu_count: int

    @property
    def id(self) -> str:
        return f"desktop:{self.barebone.id}:{self.gpu_count}x{self.gpu.id}"


@dataclass(frozen=True)
class BuildArrays:
    """Every desktop build: purchase (``upfront_usd``, USD) and busy wall power
    (``(gpu_count x TDP + base_power_w) / psu_efficiency``, W)."""

    builds: tuple[Build, ...]
    gpu_index: np.ndarray
    gpu_count: np.ndarray
    upfront_usd: np.ndarray
    power_w: np.ndarray


@dataclass(frozen=True)
class Snapshot:
    """The catalog at one revision: GPU names (for resolving what users type), GPUs (with
    per-GPU arrays), offers, desktop builds, regions, providers, barebones sorted by (slots,
    price, id), and benchmark results, with ``runtimes_s[benchmark][gpu]`` the measured
    seconds of every result that did not run out of memory."""

    revision: int
    gpu_names: NameIndex
    gpus: tuple[Gpu, ...]
    gpu_position: dict[str, int]
    gpu_tdp_w: np.ndarray
    gpu_memory_gb: np.ndarray
    offers: OfferArrays
    builds: BuildArrays
    regions: dict[str, Region]
    providers: dict[str, ProviderInfo]
    barebones: tuple[Barebone, ...]
    benchmark_results: dict[str, dict[str, BenchmarkResult]]
    runtimes_s: dict[str, dict[str, float]]
    profiles: dict[str, UtilizationProfile] = field(default_factory=dict)
    benchmarks: dict[str, Benchmark] = field(default_factory=dict)
    as_of: dt.date | None = None
    database: URL | None = None  # the catalog's database (snapshots of several can coexist)
    offer_by_id: dict[str, CloudOffer] = field(default_factory=dict)
    barebone_by_id: dict[str, Barebone] = field(default_factory=dict)

    def gpu(self, gpu_id: str) -> Gpu | None:
        """The GPU with id ``gpu_id``, or None."""
        i = self.gpu_position.get(gpu_id)
        return None if i is None else self.gpus[i]


def smallest_barebone(barebones: tuple[Barebone, ...], gpu_count: int) -> Barebone | None:
    """The barebone with the fewest GPU slots that still holds ``gpu_count`` GPUs, cheapest
    on ties; ``barebones`` sorted by (slots, price, id) as :attr:`Snapshot.barebones` is."""
    return next((b for b in barebones if b.gpu_slots >= gpu_count), None)


def _assemble_builds(gpus: list[Gpu], barebones: tuple[Barebone, ...]) -> list[Build]:
    """For every GPU with a catalog price and every count from 1 to the largest barebone's
    slots: the build in the smallest barebone that holds that many GPUs."""
    most = max((b.gpu_slots for b in barebones), default=0)
    return [
        Build(smallest_barebone(barebones, n), gpu, n)  # type: ignore[arg-type]
        for gpu in gpus
        if gpu.price_new_usd is not None
        for n in range(1, most + 1)
    ]


def build_snapshot(session: Session, revision: int) -> Snapshot:
    """Read the whole catalog once and lay it out as arrays (tagged with ``session``'s
    database)."""
    results: dict[str, dict[str, BenchmarkResult]] = {}
    for res in session.exec(select(BenchmarkResult)):
        results.setdefault(res.benchmark_id, {})[res.gpu_id] = res
    return _lay_out(
        revision,
        None,
        database=session.get_bind().engine.url,
        gpus=list(session.exec(select(Gpu).order_by(Gpu.id))),
        regions={r.id: r for r in session.exec(select(Region))},
        providers={p.id: p for p in session.exec(select(ProviderInfo))},
        offers=list(session.exec(select(CloudOffer).order_by(CloudOffer.id))),
        barebones=list(session.exec(select(Barebone))),
        results=results,
        profiles={p.id: p for p in session.exec(select(UtilizationProfile))},
        benchmarks={b.id: b for b in session.exec(select(Benchmark))},
    )


def _lay_out(
    revision: int,
    as_of: dt.date | None,
    *,
    database: URL,
    gpus: list[Gpu],
    regions: dict[str, Region],
    providers: dict[str, ProviderInfo],
    offers: list[CloudOffer],
    barebones: list[Barebone],
    results: dict[str, dict[str, BenchmarkResult]],
    profiles: dict[str, UtilizationProfile],
    benchmarks: dict[str, Benchmark],
) -> Snapshot:
    position = {g.id: i for i, g in enumerate(gpus)}
    by_slots = tuple(sorted(barebones, key=lambda b: (b.gpu_slots, b.price_usd, b.id)))

    def offer_region(o: CloudOffer) -> Region | None:
        return regions.get(f"{o.provider}:{o.region}") if o.region else None

    pue, ci = [], []
    for o in offers:
        reg = offer_region(o)
        prov = providers.get(o.provider)
        pue.append(reg.pue if reg and reg.pue else (prov.pue if prov else 1.0))
        ci.append(reg.carbon_intensity_g_per_kwh if reg else np.nan)
    burn = np.array([o.compute_units_per_hour or 0.0 for o in offers])
    units = np.array([o.included_compute_units_per_month for o in offers], dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        included_h = np.where(burn > 0, units / burn, 0.0)
    price = np.array([float(o.price_usd_per_hour) for o in offers])
    fee = np.array([float(o.monthly_fee_usd) for o in offers])
    offer_arrays = OfferArrays(
        offers=tuple(offers),
        gpu_index=np.array([position[o.gpu_id] for o in offers], dtype=np.int64),
        gpu_count=np.array([o.gpu_count for o in offers], dtype=float),
        price_usd_per_hour=price,
        monthly_fee_usd=fee,
        included_hours_per_month=included_h,
        billing_increment_h=np.array([(o.billing_increment_s or 0.0) for o in offers])
        / SECONDS_PER_HOUR,
        billing_minimum_h=np.array([(o.billing_minimum_s or 0.0) for o in offers])
        / SECONDS_PER_HOUR,
        pue=np.array(pue, dtype=float),
        carbon_intensity_g_per_kwh=np.array(ci, dtype=float),
        provider=np.array([str(o.provider) for o in offers], dtype=object),
        pricing_model=np.array([str(o.pricing_model) for o in offers], dtype=object),
        region=np.array([o.region or "" for o in offers], dtype=object),
        spot=np.array([str(o.pricing_model) in SPOT_MODELS for o in offers]),
        free=(price == 0) & (fee == 0),
        family=np.unique(
            np.array([f"{o.provider}|{o.instance_type}|{o.pricing_model}" for o in offers]),
            return_inverse=True,
        )[1].astype(np.int64),
    )
    builds = _assemble_builds(gpus, by_slots)
    build_arrays = BuildArrays(
        builds=tuple(builds),
        gpu_index=np.array([position[b.gpu.id] for b in builds], dtype=np.int64),
        gpu_count=np.array([b.gpu_count for b in builds], dtype=float),
        upfront_usd=np.array(
            [float(b.barebone.price_usd) + b.gpu_count * b.gpu.price_new_usd for b in builds]
        ),
        power_w=np.array(
            [
                (b.gpu_count * b.gpu.tdp_w + b.barebone.base_power_w)
                / (b.barebone.psu_efficiency or 1.0)
                for b in builds
            ]
        ),
    )
    return Snapshot(
        revision=revision,
        gpu_names=NameIndex((g.id, g.name, g.aliases or []) for g in gpus),
        gpus=tuple(gpus),
        gpu_position=position,
        gpu_tdp_w=np.array([g.tdp_w for g in gpus], dtype=float),
        gpu_memory_gb=np.array([g.memory_gb for g in gpus], dtype=float),
        offers=offer_arrays,
        builds=build_arrays,
        regions=regions,
        providers=providers,
        barebones=by_slots,
        benchmark_results=results,
        runtimes_s={
            bid: {gid: r.seconds for gid, r in by_gpu.items() if r.seconds is not None}
            for bid, by_gpu in results.items()
        },
        profiles=profiles,
        benchmarks=benchmarks,
        as_of=as_of,
        database=database,
        offer_by_id={o.id: o for o in offers},
        barebone_by_id={b.id: b for b in barebones},
    )


# ------------------------------------------------------------------------------------------
# Dated views
# ------------------------------------------------------------------------------------------

Prices = dict[tuple[str, str, str], tuple[dt.date, object]]


def prices_on(session: Session, day: dt.date) -> Prices:
    """Every price in force on ``day``: ``{(table, id, field): (valid_from, value)}``, the
    last point dated on or before ``day`` (the last recorded, on a tie)."""
    stmt = (
        select(PricePoint)
        .where(PricePoint.valid_from <= day)
        .order_by(PricePoint.valid_from, PricePoint.id)
    )
    out: Prices = {}
    for p in session.exec(stmt):
        out[(p.item_kind, p.item_id, p.field)] = (p.valid_from, p.value)
    return out


def _dated(row, kind: str, prices: Prices):
    """``row`` with each price replaced by the one in force that day (None when it had none
    yet) and its date column set to that price's date; None when the row cannot exist
    without that price (an offer's or a barebone's price is required, a GPU's is not)."""
    model = type(row)
    table = model.__table__  # type: ignore[attr-defined]
    update: dict[str, object] = {}
    for name, cols in PRICE_FIELDS[kind].items():
        day, value = prices.get((kind, row.id, name), (None, None))
        if value is None and model.model_fields[name].is_required():
            return None
        update[name] = column_value(table.c[name], value)
        if value is not None:
            update[cols.date] = day
    fields = {name: getattr(row, name) for name in model.model_fields}
    return model.model_validate({**fields, **update})


def dated_view(base: Snapshot, prices: Prices, day: dt.date) -> Snapshot:
    """``base`` with the prices of ``day`` (see :func:`prices_on`). Offers and barebones
    with no price that day are left out; GPUs and regions stay, unpriced."""
    offers = [o for o in (_dated(o, "cloud_offer", prices) for o in base.offers.offers) if o]
    barebones = [b for b in (_dated(b, "barebone", prices) for b in base.barebones) if b]
    gpus = [_dated(g, "gpu", prices) for g in base.gpus]
    regions = {rid: _dated(r, "region", prices) for rid, r in base.regions.items()}
    return _lay_out(
        base.revision,
        day,
        database=base.database,
        gpus=gpus,
        regions=regions,
        providers=base.providers,
        offers=offers,
        barebones=barebones,
        results=base.benchmark_results,
        profiles=base.profiles,
        benchmarks=base.benchmarks,
    )


_lock = threading.Lock()
_current: Snapshot | None = None


def current_revision(session: Session) -> int:
    """The catalog's revision counter (0 before the first seed)."""
    row = session.get(CatalogRevision, 1)
    return row.revision if row else 0


_views: OrderedDict[tuple[URL | None, int, dt.date], Snapshot] = OrderedDict()
# Dated views kept per process, least recently used dropped first. Each is a copy of the
# catalog rows: 6.3 MB measured with tracemalloc on the shipped catalog (2026-11-22), so 4
# views add at most ~25 MB to a worker (140 MB measured by make bench without them).
VIEWS_KEPT = 4
_pinned_day: ContextVar[dt.date | None] = ContextVar("prices_as_of", default=None)


@contextmanager
def prices_as_of(day: dt.date | None) -> Iterator[None]:
    """Within this block (in this thread or task), :func:`get_snapshot` answers with the
    prices of ``day`` (None: the current prices)."""
    token = _pinned_day.set(day)
    try:
        yield
    finally:
        _pinned_day.reset(token)


# engine -> (monotonic time, revision seen). Keyed by the engine object: hashing a URL renders
# it to a string, and this is looked up several times per request.
# Weak keys: an engine disposed of (tests make many) does not stay alive through this map.
_checked: WeakKeyDictionary[Engine, tuple[float, int]] = WeakKeyDictionary()


def catalog_written() -> None:
    """Call after committing a catalog write: this process re-reads the revision on its next
    request instead of waiting out the check interval (other processes see the change within
    ``snapshot_check_interval_s``)."""
    _checked.clear()


def _revision(session: Session, engine: Engine) -> int:
    """The catalog revision, read from the database at most every
    ``snapshot_check_interval_s``; while the database is down, the last one seen (the
    snapshot keeps answering)."""
    now = time.monotonic()
    last = _checked.get(engine)
    if last is not None and now - last[0] < get_settings().snapshot_check_interval_s:
        return last[1]
    try:
        revision = current_revision(session)
    except (OperationalError, InterfaceError, SATimeoutError):
        if last is None or _current is None or _current.database != engine.url:
            raise
        session.rollback()
        _checked[engine] = (now, last[1])  # retry after the interval, not every request
        return last[1]
    _checked[engine] = (now, revision)
    return revision


def get_snapshot(session: Session, as_of: dt.date | None = None) -> Snapshot:
    """This process's snapshot, rebuilt first if the catalog revision moved; for ``as_of``
    (or the day pinned by :func:`prices_as_of`), the dated view of that day."""
    global _current
    day = as_of or _pinned_day.get()
    bind = session.get_bind()
    engine = bind.engine  # Engine.engine is the engine itself; Connection.engine too
    database = engine.url
    revision = _revision(session, engine)
    snap = _current
    if snap is None or snap.revision != revision or snap.database != database:
        with _lock:
            if _current is None or (_current.revision, _current.database) != (
                revision,
                database,
            ):
                # Its own session: the rows outlive it, detached and read-only.
                with Session(bind) as own:
                    _current = build_snapshot(own, revision)
                _views.clear()
                SNAPSHOT_BUILDS.labels("current").inc()
                CATALOG_REVISION.set(revision)
            snap = _current
    if day is None:
        return snap
    key = (snap.database, snap.revision, day)
    with _lock:  # one lock for lookups too: move_to_end and popitem must not interleave
        view = _views.get(key)
        if view is not None:
            _views.move_to_end(key)
            return view
        with Session(bind) as own:
            view = dated_view(snap, prices_on(own, day), day)
        SNAPSHOT_BUILDS.labels("dated").inc()
        _views[key] = view
        while len(_views) > VIEWS_KEPT:
            _views.popitem(last=False)
    return view
