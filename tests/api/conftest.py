"""API tests run in a transaction that is rolled back (tests/conftest.py); anything written
through the engine instead (keys, the Slack replay store, catalog writes) must be removed by
the test that wrote it. This check fails a test that leaves rows behind in the shared test
database, so every API test starts from the seeded catalog."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import inspect, text

from app.db import get_engine

WATCHED = (
    "api_key",
    "scenario",
    "slack_replay",
    "price_point",
    "cloud_offer",
    "gpu",
    "barebone",
    "catalog_revision",
)


def _counts() -> dict[str, int] | None:
    engine = get_engine()  # the session's shared database (modules may use their own)
    if not inspect(engine).has_table("catalog_revision"):
        return None
    with engine.connect() as conn:
        rows = {t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one() for t in WATCHED}
        rows["revision"] = conn.execute(text("SELECT max(revision) FROM catalog_revision")).scalar()
    return rows


@pytest.fixture(autouse=True)
def leaves_nothing_behind(request: pytest.FixtureRequest) -> Iterator[None]:
    before = _counts()
    yield
    after = _counts()
    if before is not None and after is not None and after != before:
        changed = {k: f"{before[k]} -> {after[k]}" for k in before if before[k] != after[k]}
        pytest.fail(f"{request.node.nodeid} left rows in the shared test database: {changed}")
