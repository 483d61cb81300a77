"""End to end: a real uvicorn process on a fresh, migrated and seeded SQLite file, over HTTP."""

from __future__ import annotations

import httpx
import pytest

from tests.factories import SEED_OFFER_ID, break_even
from tests.servers import seeded_sqlite, uvicorn

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``gpucost serve`` on a fresh, migrated and seeded SQLite file."""
    with uvicorn(seeded_sqlite(tmp_path_factory.mktemp("e2e"))) as base:
        yield base


def test_seed_break_even_over_http(server):
    body = break_even(
        desktop={"gpu": "3090"}, cloud={"price_usd_per_hour": None, "offer_id": SEED_OFFER_ID}
    )
    out = httpx.post(f"{server}/v1/break-even", json=body, timeout=10).json()
    assert abs(out["break_even_days"] - 293) <= 1
    assert round(out["desktop"]["energy_kwh_per_year"]) == 591


def test_catalog_and_errors_over_http(server):
    gpus = httpx.get(f"{server}/v1/gpus", params={"limit": 500}, timeout=10).json()
    assert gpus["count"] >= 40
    bad = httpx.post(f"{server}/v1/carbon", json={"gpu": "t4"}, timeout=10)
    assert bad.status_code == 422
    assert bad.headers["content-type"].startswith("application/problem+json")
