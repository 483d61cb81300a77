"""Dated views: the catalog with the prices in force on a past day (``as_of``).

A :class:`~app.catalog.view.CatalogView` carries the whole price history, so the view of a day
is derived in memory: every price replaced by the last point dated on or before that day,
offers and barebones without a price yet left out (GPUs and regions stay, unpriced).

:func:`dated_view` builds one from scratch (~33 ms on the shipped catalog, holding the
interpreter lock). :class:`DatedViews` builds the views of one base view for many days: a
row's prices on a day depend only on how many of its own price changes came on or before
it, so each dated row is made once and shared by every view it appears in, and the offers'
arrays are taken from the base's instead of laid out again (~2 ms a view: a flood of
``as_of`` days that builds 48 views at ~33 ms each holds ``/healthz`` p99 at ~147 ms).
"""

from __future__ import annotations

import bisect
import dataclasses
import datetime as dt
from typing import Any

from app.catalog.layout import BuildArrays, LazyCurves, lay_out_builds, select_offers
from app.catalog.view import CatalogView, PriceHistory, assemble
from app.models.history import PRICE_FIELDS, column_value
from app.models.provenance import table_of


def price_on(
    history: PriceHistory, key: tuple[str, str, str], day: dt.date
) -> tuple[dt.date | None, Any]:
    """``(valid_from, value)`` of the point in force on ``day`` for ``key``, or (None, None)."""
    points = history.get(key, ())
    i = bisect.bisect_right([p[0] for p in points], day)
    return points[i - 1] if i else (None, None)


def _dated(row: Any, kind: str, history: PriceHistory, day: dt.date) -> Any:
    """``row`` with each price replaced by the one in force on ``day`` (None when it had none
    yet) and its date column set to that price's date (the newest, where prices share one);
    None when the row cannot exist
    without that price (an offer's or a barebone's price is required, a GPU's is not)."""
    model = table_model(row)
    table = table_of(model)
    update: dict[str, object] = {}
    for name, cols in PRICE_FIELDS[kind].items():
        valid_from, value = price_on(history, (kind, row.id, name), day)
        if value is None and model.model_fields[name].is_required():
            return None
        update[name] = column_value(table.c[name], value)
        # Fields sharing a date column (an offer's price and fee: ``as_of``) date the row by
        # the newest of their points, not by whichever field came last.
        if value is not None and (
            update.get(cols.date) is None or valid_from > update[cols.date]  # type: ignore[operator]
        ):
            update[cols.date] = valid_from
    if all(getattr(row, name) == value for name, value in update.items()):
        return row  # its prices that day are its current ones: shared, not copied
    fields = {name: getattr(row, name) for name in model.model_fields}
    return model.model_validate({**fields, **update})


def table_model(row: Any) -> Any:
    """The table model of ``row``: its class, or for a snapshot's plain row
    (:class:`app.catalog.snapshot.Row`) the table model of its table (a dated copy of a plain
    row is a table-model row: both read the same)."""
    table = getattr(type(row), "table", None)
    if isinstance(table, str) and table:
        from app.models import TABLES

        return TABLES[table]
    return type(row)


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


class DatedViews:
    """The dated views of one ``base`` view, built cheaply: see the module's docstring.

    Each row's price-change days (the union of its price fields' points) are sorted once; a
    row's dated copy for the ``i``-th span between them is made by :func:`_dated` on first use
    and kept, so the copies kept are at most the history's points plus the rows (~5,600 for
    the shipped catalog, each shared by every view of its span). Builds and depreciation
    curves, which read GPU and barebone prices, are kept per set of dated GPU and barebone
    rows (GPU prices change on few of the catalog's price-change days). Safe to call from
    several threads: two may make the same copy, and either is kept."""

    def __init__(self, base: CatalogView) -> None:
        self.base = base
        days: dict[tuple[str, str], set[dt.date]] = {}
        for (kind, row_id, _name), points in base.history.items():
            days.setdefault((kind, row_id), set()).update(p[0] for p in points)
        # Per kind: each row with its sorted price-change days (read once: a column of a
        # table model costs ~1 us to read, and a view reads ~2,100 rows).
        self._plan: dict[str, list[tuple[Any, list[dt.date]]]] = {
            kind: [(row, sorted(days.get((kind, row.id), ()))) for row in rows]
            for kind, rows in (
                ("cloud_offer", base.offers.offers),
                ("gpu", base.gpus),
                ("barebone", base.barebones),
                ("region", base.regions.values()),
            )
        }
        self._rows: dict[tuple[str, int, int], Any] = {}
        self._builds: dict[tuple[int, ...], tuple[BuildArrays, LazyCurves]] = {}

    def _dated_rows(self, kind: str, day: dt.date) -> list[Any]:
        """:func:`_dated` of each row of ``kind`` on ``day`` (None: no price yet), in the
        base's order; each made once per span of its row's prices."""
        made, history, out = self._rows, self.base.history, []
        for i, (row, changes) in enumerate(self._plan[kind]):
            key = (kind, i, bisect.bisect_right(changes, day))
            found = made.get(key, made)
            if found is made:  # not made yet (None is a made answer: no price yet)
                found = made[key] = _dated(row, kind, history, day)
            out.append(found)
        return out

    def on(self, day: dt.date) -> CatalogView:
        """The view of ``day``: the same rows, prices and arrays as ``dated_view(base, day)``."""
        base = self.base
        dated_offers = self._dated_rows("cloud_offer", day)
        kept = [i for i, o in enumerate(dated_offers) if o is not None]
        offers = [dated_offers[i] for i in kept]
        gpus = tuple(self._dated_rows("gpu", day))
        barebones = [b for b in self._dated_rows("barebone", day) if b is not None]
        by_slots = tuple(sorted(barebones, key=lambda b: (b.gpu_slots, b.price_usd, b.id)))
        key = tuple(map(id, gpus + by_slots))  # the rows are kept alive by self._rows
        if key not in self._builds:
            builds = lay_out_builds(gpus, by_slots, base.gpu_position)
            self._builds[key] = (builds, LazyCurves(gpus))
        builds, curves = self._builds[key]
        offer_rows = tuple(offers)
        # GPUs are never left out and keep their names and non-price columns, so the GPU
        # indexes (positions, names, TDP and memory arrays) are the base's.
        return dataclasses.replace(
            base,
            as_of=day,
            gpus=gpus,
            offers=select_offers(base.offers, kept, offer_rows),
            builds=builds,
            regions=dict(zip(base.regions, self._dated_rows("region", day), strict=True)),
            barebones=by_slots,
            offer_by_id={o.id: o for o in offer_rows},
            barebone_by_id={b.id: b for b in by_slots},
            build_by_id={b.id: b for b in builds.builds},
            fitted_curves=curves,
            memo={},
        )
