"""Calculations read the in-memory catalog view: once it is read, a calculation request runs
no SQL statement at all (counted with SQLAlchemy's ``before_cursor_execute`` on every engine;
the background revision poller's own statements are not the request's and are left out)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from tests.factories import SEED_BREAK_EVEN as SEED_BODY

REQUESTS = [
    ("POST", "/v1/break-even", SEED_BODY),
    ("POST", "/v1/break-even?as_of=2025-06-30", SEED_BODY),
    (
        "POST",
        "/v1/run-cost",
        {
            "workload": {"benchmark": "efficientnet"},
            "region": "us-ca",
            "options": [
                {"offer_id": "paperspace-gradient-a6000-on-demand-2022"},
                {"desktop": {"gpu": "rtx-3090", "total_price_usd": 2200}},
            ],
        },
    ),
    ("POST", "/v1/carbon", {"gpu": "a100-40gb", "hours": 100, "region": "de"}),
    (
        "POST",
        "/v1/compare",
        {"workload": {"benchmark": "stylegan_xl"}, "runs_per_month": 20, "limit": 5},
    ),
    (
        "POST",
        "/v1/break-even/sweep",
        {
            "desktop": SEED_BODY["desktop"],
            "cloud": SEED_BODY["cloud"],
            "electricity_prices_usd_per_kwh": [0.12, 0.3],
        },
    ),
    ("GET", "/v1/query?q=break-even%20for%203090%20at%2015%25%20util", None),
    ("GET", "/v1/query?q=carbon%20of%20100%20gpu-hours%20on%20h100%20sxm%20in%20CA", None),
    ("GET", "/v1/gpus?q=3090", None),
    ("GET", "/v1/cloud-offers?gpu=a100&limit=5", None),
]


@pytest.fixture()
def statements() -> Iterator[list[str]]:
    """SQL statements executed while the test runs, outside the catalog poller's thread."""
    seen: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany) -> None:
        if threading.current_thread().name != "catalog-poller":
            seen.append(statement)

    event.listen(Engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", count)


@pytest.mark.parametrize(("method", "url", "body"), REQUESTS, ids=[r[1] for r in REQUESTS])
def test_a_calculation_runs_no_sql(client, statements, method, url, body):
    warm = client.request(method, url, json=body)  # the view (and a dated one) read once
    assert warm.status_code == 200, warm.text
    statements.clear()
    again = client.request(method, url, json=body)
    assert again.status_code == 200, again.text
    assert statements == [], f"{len(statements)} SQL statements: {statements[:3]}"


def test_the_counter_sees_sql(client, statements):
    """The listener is live: a route that does read the database (readiness) is counted."""
    assert client.get("/readyz").status_code == 200
    assert statements, "the SQL counter saw nothing; the zero-SQL test would prove nothing"
