"""The audit log (issue 47): every catalog write, delete, import and refresh and every key
created or revoked appends one event in the transaction that makes the change (a refused
change appends nothing); `GET /v1/admin/audit` pages it newest first and exports CSV. Runs on
SQLite and, when configured, PostgreSQL."""

from __future__ import annotations

import csv
import datetime as dt
import getpass
import io

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from app.catalog.refresh import Download, GateBounds
from app.catalog.sources.skypilot import SOURCES
from app.models import AuditEvent
from app.store import keys
from app.store.refresh import refresh
from tests.dbs import seeded_client, seeded_engine  # noqa: F401  (fixtures)

BAREBONE = {
    "name": "Audit tower",
    "gpu_slots": 2,
    "base_power_w": 120,
    "psu_efficiency": 0.9,
    "price_usd": 1000,
    "source": "a vendor quote",
    "as_of": "2026-01-10",
}
RUNPOD_V8 = SOURCES / "skypilot-catalog/catalogs/v8/runpod/vms_gpu_subset.csv"
NOW = dt.datetime(2026, 11, 24, 12, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def keyset(engine) -> dict[str, str]:
    with Session(engine) as s:
        return {
            "write": keys.create(s, "catalog admin", ["read", "write"])[1],
            "read": keys.create(s, "auditor", ["read"])[1],
            "scenarios": keys.create(s, "lab", ["scenarios"])[1],
        }


def _h(key: str) -> dict[str, str]:
    return {"X-API-Key": key}


def _events(client, key: str, **params) -> list[dict]:
    r = client.get("/v1/admin/audit", params=params, headers=_h(key))
    assert r.status_code == 200, r.text
    return r.json()["events"]


def _count(engine) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(AuditEvent.__table__)).scalar_one()


def test_created_keys_are_logged_without_their_digest(client, keyset):
    events = _events(client, keyset["read"], action="key.create", limit=10_000)
    by_name = {e["after"]["name"]: e for e in events}
    assert {"catalog admin", "auditor", "lab"} <= set(by_name)
    made = by_name["catalog admin"]
    key_id = keyset["write"].split("_")[1]
    assert made["target"] == f"key/{key_id}" and made["before"] is None
    assert made["after"]["scopes"] == "read write"
    assert made["actor"] == f"cli:{getpass.getuser()}" and made["actor_name"] is None
    assert all(keyset["write"] not in str(v) for v in made["after"].values())
    assert "secret_sha256" not in made["after"]


def test_a_row_put_changed_and_deleted_is_logged_with_before_and_after(client, keyset):
    key_id = keyset["write"].split("_")[1]
    r = client.put("/v1/admin/barebones/bb-audit", json=BAREBONE, headers=_h(keyset["write"]))
    assert r.status_code == 201
    first = r.headers["ETag"]
    changed = {**BAREBONE, "price_usd": 1100, "as_of": "2026-02-01"}
    r = client.put(
        "/v1/admin/barebones/bb-audit",
        json=changed,
        headers={**_h(keyset["write"]), "If-Match": first},
    )
    assert r.status_code == 200
    r = client.delete(
        "/v1/admin/barebones/bb-audit",
        headers={**_h(keyset["write"]), "If-Match": r.headers["ETag"]},
    )
    assert r.status_code == 204

    log = [
        e for e in _events(client, keyset["read"], limit=50) if e["target"] == "barebones/bb-audit"
    ]
    assert [e["action"] for e in log] == ["catalog.delete", "catalog.put", "catalog.put"]
    deleted, replaced, created = log
    assert created["before"] is None and created["after"]["price_usd"] == 1000
    assert replaced["before"]["price_usd"] == 1000 and replaced["after"]["price_usd"] == 1100
    assert deleted["before"] == replaced["after"] and deleted["after"] is None
    assert {e["actor"] for e in log} == {f"key:{key_id}"}
    assert {e["actor_name"] for e in log} == {"catalog admin"}
    assert deleted["id"] > replaced["id"] > created["id"]
    assert created["at"] <= replaced["at"] <= deleted["at"]


def test_a_refused_write_appends_nothing(client, engine, keyset):
    r = client.put("/v1/admin/barebones/bb-refused", json=BAREBONE, headers=_h(keyset["write"]))
    assert r.status_code == 201
    before = _count(engine)
    stale = client.put(
        "/v1/admin/barebones/bb-refused",
        json={**BAREBONE, "price_usd": 1},
        headers={**_h(keyset["write"]), "If-Match": '"stale"'},
    )
    unknown_gpu = client.put(
        "/v1/admin/cloud-offers/audit-offer",
        json={"gpu_id": "no-such-gpu"},
        headers=_h(keyset["write"]),
    )
    no_scope = client.put("/v1/admin/barebones/bb-other", json=BAREBONE, headers=_h(keyset["read"]))
    assert (stale.status_code, unknown_gpu.status_code, no_scope.status_code) == (412, 422, 403)
    assert _count(engine) == before


def test_an_import_is_logged_with_its_file_and_counts(client, keyset):
    data = RUNPOD_V8.read_bytes()
    r = client.post(
        "/v1/admin/imports",
        params={"filename": "catalogs/v8/runpod/vms_gpu_subset.csv", "as_of": "2026-01-15"},
        content=data,
        headers={**_h(keyset["write"]), "Content-Type": "text/csv"},
    )
    assert r.status_code == 200, r.text
    totals = r.json()["totals"]
    event = _events(client, keyset["read"], action="catalog.import", limit=1)[0]
    assert event["target"] == "import/catalogs/v8/runpod/vms_gpu_subset.csv"
    assert event["actor_name"] == "catalog admin"
    after = event["after"]
    assert after["files"][0]["provider"] == "runpod"
    assert after["files"][0]["as_of"] == "2026-01-15"
    assert {k: after[k] for k in totals} == totals
    rows_in_file = len(list(csv.DictReader(io.StringIO(data.decode()))))
    assert 0 < sum(totals.values()) <= rows_in_file


def test_a_failed_refresh_is_logged(client, engine, keyset, tmp_path):
    fast = Download(timeout_s=5, attempts=1, backoff_s=0)
    [result] = refresh(engine, ["aws"], str(tmp_path), GateBounds(), fast, NOW)
    assert result.outcome == "failed"
    event = _events(client, keyset["read"], action="catalog.refresh", limit=1)[0]
    assert event["target"] == "refresh/aws"
    assert event["after"]["outcome"] == "failed"
    assert event["after"]["message"] == result.message
    assert dt.datetime.fromisoformat(event["at"]) == NOW


def test_a_revoked_key_is_logged_with_its_dates(client, engine, keyset):
    with Session(engine) as s:
        row, _key = keys.create(s, "short-lived", ["read"])
        keys.revoke(s, row.id)
    event = _events(client, keyset["read"], action="key.revoke", limit=1)[0]
    assert event["target"] == f"key/{row.id}"
    assert event["before"]["revoked_at"] is None
    revoked = dt.datetime.fromisoformat(event["after"]["revoked_at"])
    assert abs(revoked - dt.datetime.now(dt.UTC)) < dt.timedelta(minutes=5)


def test_pages_follow_each_other_newest_first(client, keyset):
    everything = _events(client, keyset["read"], limit=10_000)
    assert len(everything) >= 5
    ids = [e["id"] for e in everything]
    assert ids == sorted(ids, reverse=True)
    seen: list[int] = []
    before_id = None
    while True:
        params = {"limit": 2, **({"before_id": before_id} if before_id else {})}
        page = client.get("/v1/admin/audit", params=params, headers=_h(keyset["read"])).json()
        seen += [e["id"] for e in page["events"]]
        before_id = page["next_before_id"]
        if before_id is None:
            break
    assert seen == ids


def test_the_time_window_and_action_filter(client, keyset):
    assert _events(client, keyset["read"], since="2999-01-01T00:00:00Z") == []
    assert _events(client, keyset["read"], until="2000-01-01T00:00:00Z") == []
    refreshes = _events(client, keyset["read"], action="catalog.refresh")
    assert refreshes and {e["action"] for e in refreshes} == {"catalog.refresh"}
    window = _events(
        client, keyset["read"], since="2026-11-24T11:59:00Z", until="2026-11-24T12:01:00Z"
    )
    assert [e["target"] for e in window] == ["refresh/aws"]


def test_the_csv_export_holds_the_same_events(client, keyset):
    r = client.get(
        "/v1/admin/audit", params={"format": "csv", "limit": 10_000}, headers=_h(keyset["read"])
    )
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/csv")
    assert "attachment" in r.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(r.text)))
    events = _events(client, keyset["read"], limit=10_000)
    assert [int(row["id"]) for row in rows] == [e["id"] for e in events]
    assert [row["action"] for row in rows] == [e["action"] for e in events]


@pytest.mark.parametrize("key,status", [(None, 401), ("scenarios", 403)])
def test_the_log_needs_the_read_scope(client, keyset, key, status):
    headers = _h(keyset[key]) if key else {}
    r = client.get("/v1/admin/audit", headers=headers)
    assert r.status_code == status
    assert r.headers["content-type"] == "application/problem+json"
