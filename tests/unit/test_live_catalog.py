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


def test_a_catalog_view_holds_no_reference_cycles_so_a_frozen_one_is_still_freed(engine):
    """freeze_heap moves the view into the collector's permanent generation, which the
    collector never scans again: a replaced view is freed only if reference counting alone
    frees it, i.e. if reading one makes no reference cycle (or every catalog write would leak
    a view)."""
    import gc

    from sqlmodel import Session

    from app.catalog.read import read_view

    with Session(engine) as session:
        built = read_view(session)
    assert built.revision >= 1
    held, todo = {id(built)}, [built]
    while todo:  # every container the view reaches
        for inner in gc.get_referents(todo.pop()):
            if gc.is_tracked(inner) and id(inner) not in held:
                held.add(id(inner))
                todo.append(inner)
    assert len(held) > 1_000
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what only the cyclic collector could free, kept to look at
    try:
        del built
        gc.collect()
        cyclic = [type(o).__name__ for o in gc.garbage if id(o) in held]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert cyclic == []


def test_the_started_service_has_frozen_its_heap(engine, monkeypatch):
    """After start-up (the lifespan) the catalog and the modules are in the permanent
    generation; once the service stops they are collectable again."""
    import gc

    from fastapi.testclient import TestClient

    from app.main import create_app
    from app.settings import get_settings

    monkeypatch.setenv("GPUCOST_FREEZE_HEAP", "true")
    get_settings.cache_clear()
    with TestClient(create_app()) as client:
        assert client.get("/healthz").status_code == 200
        assert gc.get_freeze_count() > 10_000
    assert gc.get_freeze_count() == 0
    monkeypatch.undo()
    get_settings.cache_clear()
