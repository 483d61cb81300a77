"""Lay catalog rows out for calculations over every option at once: NumPy arrays of offers and
desktop builds, and the depreciation curves fitted to the catalog's used GPU prices.

Pure functions over rows already read; :mod:`app.catalog.view` calls them once per catalog
revision (and once per dated view).
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from app.catalog.sources.resale import (
    DAYS_PER_YEAR,
    excluded_because,
    resale_class,
    resale_observations,
)
from app.costing import ownership as own

if TYPE_CHECKING:
    from app.models import Barebone, CloudOffer, Gpu, ProviderInfo, Region


log = logging.getLogger("gpucost.catalog")

SECONDS_PER_HOUR = 3600.0
SPOT_MODELS = ("spot", "interruptible")


@dataclass(frozen=True)
class OfferArrays:
    """Every cloud offer, one element each (see :class:`app.models.CloudOffer` for units).

    ``pue`` is the offer region's PUE, else its provider's; ``carbon_intensity_g_per_kwh``
    is the offer region's, NaN when the offer has no catalog region (the request's region or
    the default applies). ``free`` marks plans with no price and no fee (Colab Free).
    ``family`` numbers each (provider, instance type, pricing model, commitment term): the
    same offer in other regions shares it. ``commitment_months`` is a committed-use offer's
    term (0 for pay-as-you-go): it is billed for every hour of the term."""

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
    commitment_months: np.ndarray


@dataclass(frozen=True)
class Build:
    """A desktop assembled from a catalog barebone and ``gpu_count`` catalog GPUs."""

    barebone: Barebone
    gpu: Gpu
    gpu_count: int

    @property
    def id(self) -> str:
        """``desktop:{barebone}:{count}x{gpu}``."""
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


SERVER_FORM_FACTORS = frozenset({"datacenter_pcie", "datacenter_sxm"})


def wants_server(gpu: Gpu | None) -> bool:
    """Whether ``gpu`` goes in a rack server rather than a desktop: datacenter cards are
    passively cooled (they rely on a server's fans) and draw more than desktop PSUs are sized
    for, so a default build puts them in a ``server`` barebone."""
    return gpu is not None and str(gpu.form_factor) in SERVER_FORM_FACTORS


def cheapest_barebone(
    barebones: Sequence[Barebone], gpu_count: int, gpu: Gpu | None = None
) -> Barebone | None:
    """The barebone a buyer picks today for ``gpu_count`` GPUs, or None: of those priced in
    the newest year among the ones that hold them, the cheapest (fewest slots, then id, on
    ties); a build priced years ago is no price of today (the 2020 seed barebone's $701
    against 2026's $1,980 for two GPUs). Of the kind the GPU wants (:func:`wants_server`: a
    server for datacenter GPUs, a desktop otherwise) when one of that kind holds them, else
    of any kind. An SXM module goes only in a server host with exactly its count of slots
    (an HGX board's 8), else None."""
    if gpu is not None and str(gpu.form_factor) == "datacenter_sxm":
        # SXM modules come on HGX baseboards in a server built for them: only a server host
        # whose slots are the board's GPUs (the catalog's 8-GPU host), and no other count.
        hosts = [b for b in barebones if str(b.kind) == "server" and b.gpu_slots == gpu_count]
        return min(hosts, key=lambda b: (b.price_usd, b.id), default=None)
    fits = [b for b in barebones if b.gpu_slots >= gpu_count]
    kind = "server" if wants_server(gpu) else "desktop"
    preferred = [b for b in fits if str(b.kind) == kind] or fits
    newest = max((b.as_of.year for b in preferred if b.as_of), default=None)
    current = [b for b in preferred if b.as_of and b.as_of.year == newest] or preferred
    return min(current, key=lambda b: (b.price_usd, b.gpu_slots, b.id), default=None)


def offer_region(regions: dict[str, Region], offer: CloudOffer) -> Region | None:
    """The catalog region of ``offer`` (``{provider}:{region}``), or None."""
    return regions.get(f"{offer.provider}:{offer.region}") if offer.region else None


def lay_out_offers(
    offers: Sequence[CloudOffer],
    position: dict[str, int],
    regions: dict[str, Region],
    providers: dict[str, ProviderInfo],
) -> OfferArrays:
    """:class:`OfferArrays` of ``offers`` (``position``: GPU id -> index)."""
    pue, ci = [], []
    for o in offers:
        reg = offer_region(regions, o)
        prov = providers.get(o.provider)
        pue.append(reg.pue if reg and reg.pue else (prov.pue if prov else 1.0))
        ci.append(reg.carbon_intensity_g_per_kwh if reg else np.nan)
    burn = np.array([o.compute_units_per_hour or 0.0 for o in offers])
    units = np.array([o.included_compute_units_per_month for o in offers], dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        included_h = np.where(burn > 0, units / burn, 0.0)
    price = np.array([float(o.price_usd_per_hour) for o in offers])
    fee = np.array([float(o.monthly_fee_usd) for o in offers])
    families = [
        f"{o.provider}|{o.instance_type}|{o.pricing_model}|{o.commitment_term_months or ''}"
        for o in offers
    ]
    return OfferArrays(
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
        spot=np.array([str(o.pricing_model) in SPOT_MODELS for o in offers], dtype=bool),
        free=(price == 0) & (fee == 0),
        family=np.unique(np.array(families), return_inverse=True)[1].astype(np.int64),
        commitment_months=np.array([o.commitment_term_months or 0 for o in offers], dtype=float),
    )


def select_offers(
    arrays: OfferArrays, kept: Sequence[int], offers: Sequence[CloudOffer]
) -> OfferArrays:
    """The :class:`OfferArrays` of ``offers``, which are ``arrays.offers[i]`` for each ``i``
    in ``kept`` (ascending) with other prices and dates: each array taken from ``arrays`` at
    ``kept`` (no row is read again: a dated view of the shipped catalog's 1,655 offers in
    ~0.3 ms instead of ~25 ms), the prices and ``free`` from ``offers``."""
    at = np.asarray(kept, dtype=np.int64)
    price = np.array([float(o.price_usd_per_hour) for o in offers])
    fee = np.array([float(o.monthly_fee_usd) for o in offers])
    return OfferArrays(
        offers=tuple(offers),
        gpu_index=arrays.gpu_index[at],
        gpu_count=arrays.gpu_count[at],
        price_usd_per_hour=price,
        monthly_fee_usd=fee,
        included_hours_per_month=arrays.included_hours_per_month[at],
        billing_increment_h=arrays.billing_increment_h[at],
        billing_minimum_h=arrays.billing_minimum_h[at],
        pue=arrays.pue[at],
        carbon_intensity_g_per_kwh=arrays.carbon_intensity_g_per_kwh[at],
        provider=arrays.provider[at],
        pricing_model=arrays.pricing_model[at],
        region=arrays.region[at],
        spot=arrays.spot[at],
        free=(price == 0) & (fee == 0),
        family=np.unique(arrays.family[at], return_inverse=True)[1].astype(np.int64),
        commitment_months=arrays.commitment_months[at],
    )


def lay_out_builds(
    gpus: Sequence[Gpu], barebones: Sequence[Barebone], position: dict[str, int]
) -> BuildArrays:
    """For every GPU with a catalog purchase price (:meth:`Gpu.purchase_price`: the newer of
    its street and launch prices) and every count from 1 to the largest barebone's slots: the
    build in the cheapest barebone of the kind the GPU wants that holds that many GPUs
    (:func:`cheapest_barebone`; ``barebones`` sorted by slots, price, id)."""
    most = max((b.gpu_slots for b in barebones), default=0)
    builds: list[Build] = []
    upfront: list[float] = []
    for gpu in gpus:
        price = gpu.purchase_price()
        if price is None:
            continue
        for n in range(1, most + 1):
            barebone = cheapest_barebone(barebones, n, gpu)
            if barebone is not None:  # always, for n up to the largest barebone's slots
                builds.append(Build(barebone, gpu, n))
                upfront.append(float(barebone.price_usd) + n * price.usd)
    return BuildArrays(
        builds=tuple(builds),
        gpu_index=np.array([position[b.gpu.id] for b in builds], dtype=np.int64),
        gpu_count=np.array([b.gpu_count for b in builds], dtype=float),
        upfront_usd=np.array(upfront),
        power_w=np.array(
            [
                (b.gpu_count * b.gpu.tdp_w + b.barebone.base_power_w)
                / (b.barebone.psu_efficiency or 1.0)
                for b in builds
            ]
        ),
    )


# Depreciation curves: {resale class (consumer, workstation, datacenter), or None for the
# pooled fit: (curve, note)}.
Curves = dict[str | None, tuple[own.DepreciationCurve, str]]


class LazyCurves:
    """:func:`fit_curves` of ``gpus``, fitted on first :meth:`get` and kept: the fit (and
    SciPy's import) is most of a catalog load, and most answers never read a resale value.
    Safe from several threads (one fits, the others wait for it)."""

    def __init__(self, gpus: Sequence[Gpu]) -> None:
        self._gpus = tuple(gpus)
        self._curves: Curves | None = None
        self._lock = threading.Lock()

    def __getstate__(self) -> tuple[tuple[Gpu, ...], Curves | None]:
        return self._gpus, self._curves

    def __setstate__(self, state: tuple[tuple[Gpu, ...], Curves | None]) -> None:
        self._gpus, self._curves = state
        self._lock = threading.Lock()

    def get(self) -> Curves:
        """The curves (see :func:`fit_curves`)."""
        with self._lock:
            if self._curves is None:
                self._curves = fit_curves(self._gpus)
            return self._curves


# (age in years, retained fraction, GPU id, the used price's source)
_Point = tuple[float, float, str, str]


@functools.lru_cache(maxsize=64)
def _fit(points: tuple[_Point, ...], what: str) -> own.DepreciationCurve:
    """:func:`app.costing.ownership.fit_depreciation` over ``points``, its source naming how
    many observations of how many cards, and their sources. Kept per set of points: every
    view (and dated view) of a catalog whose used prices are the same fits the same curves
    (a least-squares fit, ~3 ms each)."""
    cards = sorted({g for _, _, g, _ in points})
    sources = sorted({s.split(",")[0] for *_, s in points if s})
    return own.fit_depreciation(
        [(a, r) for a, r, _, _ in points],
        f"least-squares fit of used/launch price against age ({what}): {len(points)} "
        f"observations of {len(cards)} cards ({', '.join(cards)}) in "
        "app/data/curated/resale_observations.csv and the catalog's used prices; used prices "
        f"from: {'; '.join(sources[:12])}" + ("; ..." if len(sources) > 12 else ""),
    )


def _catalog_points(
    gpus: Sequence[Gpu], seen: set[tuple[str, dt.date]]
) -> list[tuple[str | None, _Point]]:
    """The catalog's own (launch price, used price) pairs not already observed: an admin's
    newer used price feeds the fit. A used price dated on or before its launch price's day
    says nothing about depreciation: left out and logged."""
    out: list[tuple[str | None, _Point]] = []
    for g in gpus:
        if not (g.price_new_usd and g.price_used_usd and g.price_new_as_of and g.price_used_as_of):
            continue
        if (g.id, g.price_used_as_of) in seen:
            continue
        age = (g.price_used_as_of - g.price_new_as_of).days / DAYS_PER_YEAR
        if age <= 0:
            log.warning(
                "gpu %s: used price dated %s, not after its launch price (%s); left out "
                "of the depreciation fit",
                g.id,
                g.price_used_as_of,
                g.price_new_as_of,
            )
            continue
        if excluded_because(g.price_used_as_of, age) is None:
            point = (age, g.price_used_usd / g.price_new_usd, g.id, g.price_used_source or "")
            out.append((resale_class(g.form_factor), point))
    return out


def fit_curves(gpus: Sequence[Gpu]) -> Curves:
    """Every resale class's depreciation curve and the pooled one (key None), fitted to the
    curated observations (less those left out: :func:`excluded_because`) and the catalog's
    own used prices; empty without any point."""
    observed = resale_observations()
    points: dict[str | None, list[_Point]] = {}
    for o in observed:
        if o.excluded is None:
            points.setdefault(o.cls, []).append((o.age_years, o.retained, o.gpu_id, o.source))
    seen = {(o.gpu_id, o.used_on) for o in observed}
    for cls, point in _catalog_points(gpus, seen):
        points.setdefault(cls, []).append(point)
    if not points:
        return {}
    pooled = [p for ps in points.values() for p in ps]
    curves: Curves = {
        cls: (_fit(tuple(ps), f"class {cls}"), f"class {cls}") for cls, ps in points.items()
    }
    curves[None] = (_fit(tuple(pooled), "all classes"), f"all {len(pooled)} observations")
    return curves
