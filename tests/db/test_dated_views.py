"""Dated views built by :class:`app.catalog.dated.DatedViews` (rows shared between views,
offers' arrays taken from the base's) are the views :func:`app.catalog.dated.dated_view`
builds from scratch by the definition (every row re-dated, everything laid out again): on
every price-change day of the shipped catalog, the day before each, and a day before any
price. The prices themselves are checked against the SkyPilot sources in test_history.py."""

from __future__ import annotations

import dataclasses
import datetime as dt

import numpy as np

from app.catalog.dated import DatedViews, dated_view
from app.catalog.live import live_catalog
from app.catalog.view import CatalogView


def _rows(rows) -> list:
    return [None if r is None else {n: getattr(r, n) for n in type(r).model_fields} for r in rows]


def _same(fast: CatalogView, slow: CatalogView) -> None:
    assert fast.as_of == slow.as_of
    assert _rows(fast.gpus) == _rows(slow.gpus)
    assert _rows(fast.offers.offers) == _rows(slow.offers.offers)
    assert _rows(fast.barebones) == _rows(slow.barebones)
    assert list(fast.regions) == list(slow.regions)
    assert _rows(fast.regions.values()) == _rows(slow.regions.values())
    for f in dataclasses.fields(fast.offers):
        if f.name != "offers":
            a, b = getattr(fast.offers, f.name), getattr(slow.offers, f.name)
            assert a.dtype == b.dtype, f.name
            np.testing.assert_array_equal(a, b, err_msg=f.name)
    assert [b.id for b in fast.builds.builds] == [b.id for b in slow.builds.builds]
    np.testing.assert_array_equal(fast.builds.upfront_usd, slow.builds.upfront_usd)
    np.testing.assert_array_equal(fast.builds.power_w, slow.builds.power_w)
    assert sorted(fast.offer_by_id) == sorted(slow.offer_by_id)
    assert sorted(fast.build_by_id) == sorted(slow.build_by_id)
    assert {k: note for k, (_, note) in fast.curves.items()} == {
        k: note for k, (_, note) in slow.curves.items()
    }
    assert fast.memo is not slow.memo


def test_shared_rows_build_the_views_the_definition_does(engine):
    base = live_catalog(engine).view
    changes = sorted({p[0] for points in base.history.values() for p in points})
    assert len(changes) > 10  # the shipped catalog's history, not an empty one
    builder = DatedViews(base)
    days = [changes[0] - dt.timedelta(days=1)]
    for day in changes:
        days += [day - dt.timedelta(days=1), day]
    for day in days:
        _same(builder.on(day), dated_view(base, day))
    # Built again in another order (rows are made once per span, whichever day asks first).
    again = DatedViews(base)
    for day in reversed(days[::3]):
        _same(again.on(day), dated_view(base, day))


def test_a_view_shares_the_rows_whose_prices_did_not_change(engine):
    base = live_catalog(engine).view
    changes = sorted({p[0] for points in base.history.values() for p in points})
    builder = DatedViews(base)
    first, second = builder.on(changes[-2]), builder.on(changes[-1])
    moved = {
        row_id
        for (kind, row_id, _), points in base.history.items()
        if kind == "cloud_offer" and any(p[0] == changes[-1] for p in points)
    }
    shared = [o for o in second.offers.offers if o.id not in moved]
    assert shared, "the last price change moved every offer"
    assert all(first.offer_by_id.get(o.id) is o for o in shared if o.id in first.offer_by_id)
