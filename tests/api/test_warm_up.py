"""Start-up warms the catalog view (issue 48: the first answers of a worker built the view's
derived data on a caller's time)."""

from __future__ import annotations

import dataclasses

from app.query import warm
from app.settings import get_settings


def test_warm_up_builds_what_the_first_answers_reuse(view):
    fresh = dataclasses.replace(view, memo={})
    warm.warm_up(fresh, get_settings())
    assert {"speed_evidence", "price_outliers", "comparable_offer_by_gpu"} <= set(fresh.memo)


def test_a_failed_warm_up_is_logged_not_raised(view, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise RuntimeError("no")

    monkeypatch.setattr(warm, "respond", broken)
    warm.warm_up(dataclasses.replace(view, memo={}), get_settings())
    assert "warm-up failed" in caplog.text
