"""Dated views: the catalog with the prices in force on a past day (``as_of``).

A :class:`~app.catalog.view.CatalogView` carries the whole price history, so the view of a day
is derived in memory: every price replaced by the last point dated on or before that day,
offers and barebones without a price yet left out (GPUs and regions stay, unpriced).
"""

from __future__ import annotations

import bisect
import datetime as dt
from typing import Any

from app.catalog.view import CatalogView, PriceHistory, assemble
from app.models.common import table_of
from app.models.history import PRICE_FIELDS, column_value


def price_on(
    history: PriceHistory, key: tuple[str, str, str], day: dt.date
) -> tuple[dt.date | None, Any]:
    """``(valid_from, value)`` of the point in force on ``day`` for ``key``, or (None, None)."""
    points = history.get(key, ())
    i = bisect.bisect_right([p[0] for p in points], day)
    return points[i - 1] if i else (None, None)


def _dated(row: Any, kind: str, history: PriceHistory, day: dt.date) -> Any:
    """``row`` with each price replaced by the one in force on ``day`` (None when it had none
    yet) and its date column set to that price's date; None when the row cannot exist
    without that price (an offer's or a barebone's price is required, a GPU's is not)."""
    model = type(row)
    table = table_of(model)
    update: dict[str, object] = {}
    for name, cols in PRICE_FIELDS[kind].items():
        valid_from, value = price_on(history, (kind, row.id, name), day)
        if value is None and model.model_fields[name].is_required():
            return None
        update[name] = column_value(table.c[name], value)
        if value is not None:
            update[cols.date] = valid_from
    if all(getattr(row, name) == value for name, value in update.items()):
        return row  # its prices that day are its current ones: shared, not copied
    fields = {name: getattr(row, name) for name in model.model_fields}
    return model.model_validate({**fields, **update})


# The parts of a view that carry no dated price: a dated view takes them as they are.
_UNDATED = (
    "providers",
    "benchmark_results",
    "profiles",
    "benchmarks",
    "colab_plans",
    "fx_rates",
    "embodied",
    "reference",
    "history",
    "published",
    "vat_rates",
)


def dated_view(base: CatalogView, day: dt.date) -> CatalogView:
    """``base`` with the prices of ``day``."""
    h = base.history
    offers = [o for o in (_dated(o, "cloud_offer", h, day) for o in base.offers.offers) if o]
    barebones = [b for b in (_dated(b, "barebone", h, day) for b in base.barebones) if b]
    return assemble(
        revision=base.revision,
        as_of=day,
        gpus=[_dated(g, "gpu", h, day) for g in base.gpus],
        offers=offers,
        barebones=barebones,
        regions={rid: _dated(r, "region", h, day) for rid, r in base.regions.items()},
        **{name: getattr(base, name) for name in _UNDATED},
    )
