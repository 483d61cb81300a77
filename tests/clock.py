"""The UTC days a test ran on, for answers that state today's date or a price's age.

A suite that runs past midnight UTC sees the day change between a module's import and its
request; a test asks for the days around its request instead of one day fixed at import.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def utc_today() -> dt.date:
    """Today in UTC, read now (the service's own rule: ``app.catalog.view.today``)."""
    return dt.datetime.now(dt.UTC).date()


def around(call: Callable[[], T]) -> tuple[T, set[dt.date]]:
    """``call()``'s result and the UTC days it may have read: the day before and after it."""
    before = utc_today()
    result = call()
    return result, {before, utc_today()}


def ages_days(since: dt.date, days: set[dt.date]) -> set[int]:
    """The ages in days of ``since`` on each of ``days``."""
    return {(day - since).days for day in days}
