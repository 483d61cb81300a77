"""Money in several currencies: a dated exchange rate and conversions to and from USD.

Pure Python. The model computes in USD; an answer converts once, at the rate in force on the
day whose prices it reads (the catalog view supplies the rate, with its source and date).
"""

from __future__ import annotations

import bisect
import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass

from app.costing.errors import InvalidInput


@dataclass(frozen=True)
class ExchangeRate:
    """``usd_per_unit`` USD buy one unit of ``currency`` (ISO 4217), as published by
    ``source`` for the period ending ``as_of`` (both None for USD itself)."""

    currency: str
    usd_per_unit: float
    as_of: dt.date | None
    source: str | None


USD = ExchangeRate("USD", 1.0, None, None)


def rate_in_force(rates: Sequence[ExchangeRate], day: dt.date) -> ExchangeRate:
    """The rate in force on ``day`` among one currency's dated ``rates`` (sorted by
    ``as_of``, none undated): the latest dated on or before it, else the earliest. Raises
    :class:`InvalidInput` for an empty sequence."""
    if not rates:
        raise InvalidInput("no rates", field="rates")
    dates = [r.as_of for r in rates if r.as_of is not None]
    if len(dates) != len(rates):
        raise InvalidInput("every rate needs its as_of date", field="rates")
    i = bisect.bisect_right(dates, day)
    return rates[i - 1] if i else rates[0]


def _check_rate(usd_per_unit: float) -> None:
    if not (math.isfinite(usd_per_unit) and usd_per_unit > 0):
        raise InvalidInput("rate must be > 0", field="usd_per_unit")


def to_usd(amount: float, usd_per_unit: float) -> float:
    """An amount in a currency converted to USD: ``amount x usd_per_unit``. Raises
    :class:`InvalidInput` for a rate that is not a finite number > 0."""
    _check_rate(usd_per_unit)
    return amount * usd_per_unit


def from_usd(amount_usd: float, usd_per_unit: float) -> float:
    """An amount in USD converted to a currency: ``amount_usd / usd_per_unit``. Raises
    :class:`InvalidInput` for a rate that is not a finite number > 0."""
    _check_rate(usd_per_unit)
    return amount_usd / usd_per_unit
