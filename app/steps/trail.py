"""What an answer rests on, as its scenario holds it (:class:`Provenance`: the notes its
steps returned with their values, :class:`app.costing.sourced.Sourced`, and the
:class:`PriceRule` its prices' age is judged by), the age of the catalog prices used, and the
edge's one rounding rule (:func:`sig8`). Shared by every use case."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, TypeVar, overload

import numpy as np

from app.catalog.view import CatalogView
from app.costing import defaults
from app.costing import ownership as own
from app.costing.money import ExchangeRate, from_usd
from app.costing.sourced import Assumed, Cited, Note, Priced, Sourced
from app.models.answers import Assumption, CurrencyRate, EmbodiedCarbon, PriceAge, SourceRef
from app.settings import Settings

SEED_001 = defaults.SEED_001
DEFAULT_BASE_POWER_W = defaults.BASE_POWER.number
DEFAULT_UTILIZATION_PROFILE = str(defaults.UTILIZATION_PROFILE.value)
LIFETIME_SOURCE = defaults.IRS_946
T = TypeVar("T")


@overload
def sig8(x: float) -> float: ...
@overload
def sig8(x: None) -> None: ...
@overload
def sig8(x: float | None) -> float | None: ...
def sig8(x: float | None) -> float | None:
    """Round to 8 significant digits (None stays None)."""
    return None if x is None else float(f"{x:.8g}")


def sig8_array(x: np.ndarray) -> np.ndarray:
    """:func:`sig8` of every cell, in NumPy: each is rounded to an integer count of its 8th
    significant digit and divided back, which gives the float nearest that decimal (as
    ``float(f"{x:.8g}")`` does), except that a cell within one rounding error of a tie may
    go the other way in its 8th digit. Per cell in Python, the largest sweep (100 x 1,000)
    spent ~100 ms converting; this takes a few."""
    size = np.abs(x)
    # Where the scale itself would overflow or lose digits (denormals, huge values), per cell.
    usual = np.isfinite(x) & (size > 1e-280) & (size < 1e280)
    magnitude = np.floor(np.log10(np.where(usual, size, 1.0)))
    scale = 10.0 ** (7 - magnitude)
    out = np.where(usual, np.rint(x * scale) / scale, x)
    for index in zip(*np.nonzero(~usual & np.isfinite(x)), strict=True):
        out[index] = sig8(float(x[index]))
    return out


def round2_array(x: np.ndarray) -> list[list[float | None]]:
    """A 2-D array as nested lists rounded to 2 decimals (as ``round(v, 2)``, to within a
    rounding error at a tie), a non-finite cell (e.g. a break-even that never comes) as
    None."""
    cells = np.round(x, 2).astype(object)
    cells[~np.isfinite(x)] = None
    rows: list[list[float | None]] = cells.tolist()
    return rows


@dataclass(frozen=True)
class PriceRule:
    """The day an answer reads its prices on (the pinned ``as_of``, else today, UTC) and the
    age in days past which a catalog price is warned about (``settings.price_max_age_days``)."""

    day: dt.date
    max_age_days: int


def n_gpus(n: int) -> str:
    """``n`` GPUs in words, singular for one ("1 GPU", "8 GPUs")."""
    return f"{n} GPU" if n == 1 else f"{n} GPUs"


def price_rule(view: CatalogView, settings: Settings) -> PriceRule:
    """The :class:`PriceRule` of a request over ``view``."""
    return PriceRule(day=view.day, max_age_days=settings.price_max_age_days)


@dataclass(frozen=True)
class Provenance:
    """What an answer rests on, fixed when its scenario is resolved: the notes its steps
    made, in the order met (:mod:`app.costing.sourced`), and the :class:`PriceRule` its
    prices' age is judged by. Each note is listed once when read."""

    notes: tuple[Note, ...]
    rule: PriceRule

    def distinct(self) -> tuple[list[Assumed], list[Cited], dict[str, dt.date], list[str]]:
        """The notes by kind, each once, in the order first met: a source or caveat is its own
        key; an assumption is keyed with its value's type (1 and 1.0 are two), or by its text
        when the value cannot be hashed (a list). Of a price noted twice, the last date is the
        one its age is counted from; a price without a date is left out."""
        assumed: list[Assumed] = []
        cited: list[Cited] = []
        priced: dict[str, dt.date] = {}
        caveats: list[str] = []
        seen: set[Any] = set()
        for n in self.notes:
            if isinstance(n, Priced):
                if n.as_of is not None:
                    priced[n.what] = n.as_of
                continue
            key: Any = (n, type(n.value)) if isinstance(n, Assumed) else n
            try:
                if key in seen:
                    continue
            except TypeError:
                key = repr(n)
                if key in seen:
                    continue
            seen.add(key)
            if isinstance(n, Assumed):
                assumed.append(n)
            elif isinstance(n, Cited):
                cited.append(n)
            else:
                caveats.append(n.text)
        return assumed, cited, priced, caveats

    @property
    def assumptions(self) -> list[Assumption]:
        """The assumptions, as the answer lists them."""
        return [Assumption(name=a.name, value=a.value, source=a.source) for a in self.distinct()[0]]

    @property
    def sources(self) -> list[SourceRef]:
        """The sources cited, as the answer lists them."""
        return [SourceRef(what=c.what, source=c.source, as_of=c.as_of) for c in self.distinct()[1]]

    @property
    def prices(self) -> dict[str, dt.date]:
        """The catalog prices used: {what: as-of date}."""
        return self.distinct()[2]

    @property
    def warnings(self) -> list[str]:
        """The caveats noted."""
        return self.distinct()[3]

    def fields(
        self, *, warnings_first: list[str] | None = None, warnings_after: list[str] | None = None
    ) -> dict[str, Any]:
        """A result's ``assumptions``, ``sources``, ``prices`` and ``warnings`` fields: the
        caveats (``warnings_first``, those noted, then ``warnings_after``, each once), then
        the prices older than the limit."""
        assumed, cited, priced, caveats = self.distinct()
        age, stale = price_age(self.rule, priced)
        listed = [*(warnings_first or []), *caveats, *(warnings_after or [])]
        return {
            "assumptions": [
                Assumption(name=a.name, value=a.value, source=a.source) for a in assumed
            ],
            "sources": [SourceRef(what=c.what, source=c.source, as_of=c.as_of) for c in cited],
            "prices": age,
            "warnings": list(dict.fromkeys(listed)) + stale,
        }


def price_age(rule: PriceRule, prices: dict[str, dt.date]) -> tuple[PriceAge, list[str]]:
    """:class:`PriceAge` of ``prices`` ({what: date}) against the rule's day, and a warning per
    price older than its limit, oldest first."""
    day = rule.day
    limit = rule.max_age_days
    by_age = sorted(prices.items(), key=lambda kv: (kv[1], kv[0]))  # oldest first
    oldest = by_age[0] if by_age else None
    warnings = [
        f"{what}: price dated {when.isoformat()}, {(day - when).days} days before "
        f"{day.isoformat()} (limit {limit} days)"
        for what, when in by_age
        if (day - when).days > limit
    ]
    age = PriceAge(
        prices_as_of=day,
        oldest_price_date=oldest[1] if oldest else None,
        oldest_price=oldest[0] if oldest else None,
        oldest_price_age_days=(day - oldest[1]).days if oldest else None,
        max_age_days=limit,
        prices_used=len(prices),
    )
    return age, warnings


def currency_rate(rate: ExchangeRate) -> CurrencyRate:
    """The answer's ``currency_rate`` field."""
    return CurrencyRate(
        currency=rate.currency, usd_per_unit=rate.usd_per_unit, as_of=rate.as_of, source=rate.source
    )


@overload
def in_currency(amount_usd: float, rate: ExchangeRate) -> float: ...
@overload
def in_currency(amount_usd: None, rate: ExchangeRate) -> None: ...
@overload
def in_currency(amount_usd: float | None, rate: ExchangeRate) -> float | None: ...
def in_currency(amount_usd: float | None, rate: ExchangeRate) -> float | None:
    """``amount_usd`` in the rate's currency (8 significant digits); None stays None."""
    return None if amount_usd is None else sig8(from_usd(amount_usd, rate.usd_per_unit))


def embodied_model(e: own.Embodied) -> EmbodiedCarbon:
    """An :class:`EmbodiedCarbon` field from the model's amount (8 significant digits)."""
    return EmbodiedCarbon(
        co2e_kg=sig8(e.co2e_kg), low_co2e_kg=sig8(e.low_co2e_kg), high_co2e_kg=sig8(e.high_co2e_kg)
    )


def note_launch_overhead(req: Any, how: str) -> Sourced[float]:
    """State ``req.launch_overhead_min`` (requested, or the registry's default with ``how``
    it is billed) and return it in seconds."""
    how = (
        "requested"
        if "launch_overhead_min" in req.model_fields_set
        else f"{defaults.LAUNCH_OVERHEAD.source_text()}; {how}"
    )
    note = Assumed("launch_overhead_min", req.launch_overhead_min, how)
    return Sourced(float(req.launch_overhead_min) * 60.0, (note,))
