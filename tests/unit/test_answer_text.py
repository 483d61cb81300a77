"""Money and run lengths as chat answers print them (app/query/answer_common.py): hourly
rates as price lists write them, e.g. RunPod's RTX 3090 at $0.50/h and Vast.ai's at $0.165
per GPU-hour (SkyPilot catalog, app/data/sources/skypilot-catalog); a run in hours, minutes
or seconds, never "0.0 h"."""

from __future__ import annotations

import pytest

from app.models.answers import CurrencyRate
from app.query.answer_common import in_currency_text, money, runtime_text


@pytest.mark.parametrize(
    ("usd", "text"),
    [
        (0.5, "$0.50"),  # never "$0.5"
        (0.44, "$0.44"),
        (0.165, "$0.165"),
        (0.04026, "$0.04026"),
        (0.1, "$0.10"),
        (0.0, "$0.00"),
        (1147.5, "$1,147.50"),
        (None, "n/a"),
    ],
)
def test_usd(usd: float | None, text: str) -> None:
    assert money(usd) == text


def test_another_currency_keeps_two_decimals() -> None:
    # ECB mean 2026-S2 (app/data/curated/fx_rates.csv): 1.14294 USD per EUR.
    eur = CurrencyRate(currency="EUR", usd_per_unit=1.14294, as_of=None, source=None)
    assert in_currency_text(0.5, eur) == "0.4375 EUR"  # 0.43747...
    assert in_currency_text(0.457176, eur) == "0.40 EUR"  # never "0.4 EUR"
    assert in_currency_text(2.0, eur) == "1.75 EUR"  # 1.74987...


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (134.5 * 3600, "134.5 h"),
        (3600, "1.0 h"),
        (420, "7 min"),  # not "0.1 h"
        (40, "40 s"),  # not "0.0 h"
        (2000 * 3600, "2,000.0 h"),
    ],
)
def test_runtime(seconds: float, text: str) -> None:
    assert runtime_text(seconds) == text
