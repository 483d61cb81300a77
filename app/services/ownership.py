"""Catalog side of the whole-cost-of-owning model (:mod:`app.costing.ownership`): scaling
presets chosen by a request, depreciation curves fitted to the catalog's new and used GPU
prices, embodied-carbon factors, memory presets and dated exchange rates, each noted in the
answer's assumptions and sources."""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache

from sqlmodel import Session

from app import costing
from app.catalog import loaders
from app.catalog.loaders import CURATED, FxRate, _date, fx_table, read_csv
from app.costing import ownership as own
from app.errors import CatalogGap, InvalidRequest
from app.models import Gpu
from app.models.calc import MemoryCheck
from app.models.ownership import (
    EmbodiedFactorPublic,
    EmbodiedFactorsPublic,
    FxRatePublic,
    FxRatesPublic,
    MemoryPresetPublic,
    MemoryPresetsPublic,
    ScalingPresetPublic,
    ScalingPresetsPublic,
)
from app.services.snapshot import VIEWS_KEPT, get_snapshot

# ------------------------------------------------------------------------------------------
# Multi-GPU scaling
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scaling:
    """The multi-GPU model a request uses: preset id (or ``custom``), Amdahl fraction and
    where it comes from."""

    model: str
    parallel_fraction: float
    source: str

    @classmethod
    def preset(cls, preset_id: str, how: str = "default") -> Scaling:
        """A named preset of :data:`app.costing.ownership.SCALING_PRESETS`."""
        p = own.SCALING_PRESETS[preset_id]
        source = f"{how} preset '{p.id}', Amdahl's law anchored on {p.source}"
        return cls(p.id, p.parallel_fraction, source)

    def speedup(self, gpu_count: int) -> float:
        """Speed-up of ``gpu_count`` GPUs over one (1.0 for one GPU)."""
        return costing.speedup(gpu_count, self.parallel_fraction)

    def note(self, trail, counts) -> None:
        """State the model and its speed-ups in ``trail`` when a count above 1 was used."""
        used = sorted({n for n in counts if n > 1})
        if used:
            trail.assume(
                "multi_gpu_scaling",
                {
                    "model": self.model,
                    "parallel_fraction": round(self.parallel_fraction, 6),
                    **{f"speedup_{n}_gpus": round(self.speedup(n), 4) for n in used},
                },
                self.source,
            )


DEFAULT_SCALING = Scaling.preset(own.DEFAULT_SCALING)


def resolve_scaling(req) -> Scaling:
    """The request's ``parallel_fraction`` override, else its ``scaling`` preset, else the
    default (``tuned``)."""
    if req.parallel_fraction is not None:
        return Scaling("custom", req.parallel_fraction, "given parallel_fraction (Amdahl's law)")
    if req.scaling is not None:
        return Scaling.preset(req.scaling, "requested")
    return DEFAULT_SCALING


# ------------------------------------------------------------------------------------------
# Depreciation
# ------------------------------------------------------------------------------------------


def _years(a: dt.date, b: dt.date) -> float:
    return (b - a).days / own.DAYS_PER_YEAR


Curves = dict[str | None, tuple[own.DepreciationCurve, str]]
_curves: OrderedDict[tuple, Curves] = OrderedDict()  # per catalog view, newest last
_curves_lock = threading.Lock()
# The current catalog plus the dated views (`as_of`) the snapshot keeps; a view's curves are
# a few hundred bytes, so this bounds the map, not memory.
_CURVE_VIEWS = VIEWS_KEPT + 1


def _fit(points: list[tuple[float, float, Gpu]]) -> own.DepreciationCurve:
    """:func:`app.costing.ownership.fit_depreciation` over (age, retained, GPU) points, its
    source naming each GPU and the sources of its prices."""
    ids = ", ".join(f"{g.id} ({r:.3f} after {a:.2f} y)" for a, r, g in sorted(points))
    sources = sorted({g.price_used_source or "" for _, _, g in points} - {""})
    return own.fit_depreciation(
        [(a, r) for a, r, _ in points],
        f"least-squares fit of used/launch price against age: {ids}; used prices: "
        + "; ".join(sources),
    )


def _all_curves(snap) -> Curves:
    """Every class's curve in a catalog view, and the pooled one (key None)."""
    points: dict[str | None, list[tuple[float, float, Gpu]]] = {}
    for g in snap.gpus:
        if g.price_new_usd and g.price_used_usd and g.price_new_as_of and g.price_used_as_of:
            age = _years(g.price_new_as_of, g.price_used_as_of)
            points.setdefault(g.form_factor, []).append(
                (age, g.price_used_usd / g.price_new_usd, g)
            )
    if not points:
        return {}
    pooled = [p for ps in points.values() for p in ps]
    curves: Curves = {cls: (_fit(ps), f"class {cls}") for cls, ps in points.items()}
    curves[None] = (_fit(pooled), f"all {len(pooled)} used GPUs")
    return curves


def depreciation_curve(session: Session, gpu: Gpu | None) -> tuple[own.DepreciationCurve, str]:
    """The curve for ``gpu``'s class (form factor), fitted to every catalog GPU of that class
    with a launch price and a dated used price (seed 001's used prices). A class without such
    GPUs takes the fit over all of them, and the note says so. Fitted once per catalog view.
    Raises :class:`CatalogGap` when the catalog has no used price at all."""
    snap = get_snapshot(session)
    key = (snap.database, snap.revision, snap.as_of)
    with _curves_lock:  # handlers run in a thread pool
        curves = _curves.get(key)
        if curves is None:
            curves = _curves[key] = _all_curves(snap)
            while len(_curves) > _CURVE_VIEWS:
                _curves.popitem(last=False)
    if not curves:
        raise CatalogGap("the catalog has no used GPU prices to fit a depreciation curve")
    wanted = gpu.form_factor if gpu is not None else None
    if wanted in curves:
        return curves[wanted]
    curve, note = curves[None]
    if wanted is not None:
        note = f"no used prices for class {wanted} in the catalog; the curve of {note} is applied"
    return curve, note


# ------------------------------------------------------------------------------------------
# Embodied carbon
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EmbodiedRow:
    """One ``embodied_carbon.csv`` row: the factor, the hardware lifetime it is amortized
    over (years) and the source's date."""

    factor: own.EmbodiedFactor
    lifetime_years: float
    as_of: dt.date


@lru_cache(maxsize=1)
def embodied_factors() -> dict[str, EmbodiedRow]:
    """``curated/embodied_carbon.csv``: {part (`gpu`, `desktop`): row}."""
    return {
        r["part"]: EmbodiedRow(
            own.EmbodiedFactor(float(r["co2e_kg"]), float(r["relative_sd"]), r["source"]),
            float(r["lifetime_years"]),
            _date(r["as_of"]),
        )
        for r in read_csv(CURATED / "embodied_carbon.csv")
    }


def cite_embodied(trail, *parts: str) -> None:
    """Cite the embodied-carbon factors used."""
    for part in parts:
        row = embodied_factors()[part]
        trail.cite(
            f"embodied carbon of a {part}: {row.factor.co2e_kg:g} kg CO2e "
            f"+/- {row.factor.relative_sd:.1%} (1 sd)",
            row.factor.source,
            row.as_of,
        )


def desktop_embodied(gpu_count: int, trail) -> own.Embodied:
    """Manufacturing emissions of a desktop with ``gpu_count`` GPUs: the desktop (barebone)
    plus ``gpu_count`` GPUs, kg CO2e with a one-sigma range."""
    f = embodied_factors()
    cite_embodied(trail, "desktop", "gpu")
    return own.embodied_total([(f["desktop"].factor, 1), (f["gpu"].factor, gpu_count)])


def cloud_embodied(gpu_count: int, trail) -> tuple[own.Embodied, float]:
    """Manufacturing emissions of a cloud instance's ``gpu_count`` GPUs (the host is not
    counted, as its power is not), and the lifetime they are spread over, years."""
    row = embodied_factors()["gpu"]
    cite_embodied(trail, "gpu")
    trail.assume(
        "cloud.embodied",
        f"{gpu_count} GPU(s), spread over every hour of a {row.lifetime_years:g}-year life",
        "host server not counted (as for its power); " + row.factor.source,
    )
    return own.embodied_total([(row.factor, gpu_count)]), row.lifetime_years


# ------------------------------------------------------------------------------------------
# Memory needs
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MemoryNeed:
    """GPU memory a request's workload needs, GB, and what it rests on."""

    preset: own.MemoryPreset
    precision: str
    required_gb: float

    def short_of(self, gpu: Gpu) -> str | None:
        """A warning when ``gpu`` has less memory than needed, else None."""
        if gpu.memory_gb >= self.required_gb - 1e-9:
            return None
        return (
            f"{gpu.id} has {gpu.memory_gb:g} GB, below the {self.required_gb:.3g} GB that "
            f"'{self.preset.id}' needs at {self.precision} ({self.preset.source})"
        )

    def check(self, gpus) -> tuple[MemoryCheck, list[str]]:
        """The result's ``memory`` field and one warning per distinct GPU of ``gpus`` (None
        entries skipped) below the need."""
        short: dict[str, str] = {}
        for gpu in gpus:
            if gpu is not None and gpu.id not in short and (w := self.short_of(gpu)):
                short[gpu.id] = w
        check = MemoryCheck(
            preset=self.preset.id,
            precision=self.precision,
            required_gb=round(self.required_gb, 4),
            gpus_below=list(short),
        )
        return check, list(short.values())


def memory_need(preset_id: str | None, precision: str | None, trail=None) -> MemoryNeed | None:
    """The need of preset ``preset_id`` at ``precision`` (default fp32), or None without a
    preset. Raises :class:`InvalidRequest` (422) for an unknown preset."""
    if preset_id is None:
        return None
    preset = own.MEMORY_PRESETS.get(preset_id)
    if preset is None:
        raise InvalidRequest(
            f"unknown memory preset '{preset_id}'; one of {', '.join(own.MEMORY_PRESETS)}"
        )
    precision = precision or "fp32"
    need = MemoryNeed(preset, precision, own.required_memory_gb(preset.min_memory_gb, precision))
    if trail is not None:
        source = preset.source + (
            f"; x 8/12 at 16-bit, {own.FP16_SOURCE}" if precision == "fp16" else ""
        )
        trail.assume("memory_need_gb", round(need.required_gb, 4), source)
    return need


# ------------------------------------------------------------------------------------------
# Currency
# ------------------------------------------------------------------------------------------


def fx_rate(currency: str, day: dt.date | None) -> FxRate:
    """:func:`app.catalog.loaders.fx_rate`, or :class:`InvalidRequest` (422) for a currency
    without a rate."""
    rate = loaders.fx_rate(currency, day)
    if rate is None:
        known = ", ".join(["USD", *sorted(fx_table())])
        raise InvalidRequest(f"no exchange rate for currency '{currency}'; one of {known}")
    return rate


def cite_rate(trail, rate: FxRate, why: str) -> None:
    """Name an exchange rate used in an answer."""
    if rate.currency != "USD":
        trail.cite(
            f"exchange rate {rate.currency}: {rate.usd_per_unit:g} USD per {rate.currency} ({why})",
            rate.source,
            rate.as_of,
        )


# ------------------------------------------------------------------------------------------
# Reference lists served by the catalog router
# ------------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def memory_presets() -> MemoryPresetsPublic:
    """``/v1/memory-presets``: every preset at 32-bit and 16-bit."""
    rows = [
        MemoryPresetPublic(
            id=p.id,
            label=p.label,
            min_memory_gb=p.min_memory_gb,
            min_memory_gb_fp16=round(own.required_memory_gb(p.min_memory_gb, "fp16"), 4),
            source=p.source,
        )
        for p in own.MEMORY_PRESETS.values()
    ]
    return MemoryPresetsPublic(data=rows, count=len(rows))


@lru_cache(maxsize=1)
def scaling_models() -> ScalingPresetsPublic:
    """``/v1/scaling-models``: every preset with its predicted speed-ups on 2, 4 and 8 GPUs."""
    rows = [
        ScalingPresetPublic(
            id=p.id,
            anchor_gpu_count=p.anchor_gpu_count,
            anchor_speedup=p.anchor_speedup,
            parallel_fraction=round(p.parallel_fraction, 6),
            speedup_2_gpus=round(costing.speedup(2, p.parallel_fraction), 4),
            speedup_4_gpus=round(costing.speedup(4, p.parallel_fraction), 4),
            speedup_8_gpus=round(costing.speedup(8, p.parallel_fraction), 4),
            is_default=p.id == own.DEFAULT_SCALING,
            source=p.source,
        )
        for p in own.SCALING_PRESETS.values()
    ]
    return ScalingPresetsPublic(data=rows, count=len(rows))


@lru_cache(maxsize=1)
def fx_rates() -> FxRatesPublic:
    """``/v1/fx-rates``: every dated rate, oldest first per currency."""
    rows = [
        FxRatePublic(
            currency=r.currency, usd_per_unit=r.usd_per_unit, as_of=r.as_of, source=r.source
        )
        for rates in fx_table().values()
        for r in rates
    ]
    return FxRatesPublic(data=rows, count=len(rows))


@lru_cache(maxsize=1)
def embodied_carbon() -> EmbodiedFactorsPublic:
    """``/v1/embodied-carbon``: every factor with its one-sigma range."""
    rows = [
        EmbodiedFactorPublic(
            part=part,
            co2e_kg=row.factor.co2e_kg,
            relative_sd=row.factor.relative_sd,
            low_co2e_kg=round(row.factor.co2e_kg * (1 - row.factor.relative_sd), 4),
            high_co2e_kg=round(row.factor.co2e_kg * (1 + row.factor.relative_sd), 4),
            lifetime_years=row.lifetime_years,
            source=row.factor.source,
            as_of=row.as_of,
        )
        for part, row in embodied_factors().items()
    ]
    return EmbodiedFactorsPublic(data=rows, count=len(rows))
