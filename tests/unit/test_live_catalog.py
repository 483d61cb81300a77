"""app.catalog.live: a forgotten engine's catalog is neither kept nor polled (a dropped test
database was asked for its revision every 0.5 s for the rest of the run, and each failure's
warning landed in whatever log a later test was reading)."""

from __future__ import annotations

from app.catalog import live
from app.db import make_engine


def test_a_forgotten_catalog_is_no_longer_polled_and_starts_afresh(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'x.db'}")
    try:
        first = live.live_catalog(engine, poll_interval_s=0.5)
        assert live.live_catalog(engine) is first  # one per engine
        assert first in live._poller.catalogs.values()
        live.forget_catalog(engine)
        assert first not in live._poller.catalogs.values()
        again = live.live_catalog(engine, poll_interval_s=0)
        assert again is not first and again not in live._poller.catalogs.values()
        live.forget_catalog(engine)
        live.forget_catalog(engine)  # forgetting twice is harmless
    finally:
        engine.dispose()
