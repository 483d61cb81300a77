"""Admin API: hashed API keys with scopes, ETag / If-Match on catalog writes (428, 412),
revision bumps, and saved scenarios re-evaluated with past prices. Runs on SQLite and, when
configured, PostgreSQL."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest
from sqlmodel import Session, select

from app.api import deps
from app.main import app
from app.models import ApiKey, CatalogRevision
from app.settings import Settings
from app.store import keys
from tests.clock import utc_today
from tests.dbs import seeded_client, seeded_engine  # noqa: F401  (fixtures)
from tests.factories import SEED_OFFER_ID, break_even

BAREBONE = {
    "name": "Test tower",
    "gpu_slots": 2,
    "base_power_w": 120,
    "psu_efficiency": 0.9,
    "price_usd": 1000,
    "source": "a vendor quote",
    "as_of": "2026-01-10",
}


@pytest.fixture(scope="module")
def keyset(engine) -> dict[str, str]:
    with Session(engine) as s:
        return {
            "write": keys.create(s, "admin", ["read", "write"])[1],
            "read": keys.create(s, "auditor", ["read"])[1],
            "scenarios": keys.create(s, "lab", ["scenarios"])[1],
            "other lab": keys.create(s, "other lab", ["scenarios"])[1],
        }


def _revision(engine) -> int:
    with Session(engine) as s:
        return s.get(CatalogRevision, 1).revision


def test_keys_are_stored_as_digests_only(engine, keyset):
    with Session(engine) as s:
        rows = s.exec(select(ApiKey)).all()
    stored = {r.secret_sha256 for r in rows}
    for key in keyset.values():
        assert hashlib.sha256(key.encode()).hexdigest() in stored
        assert all(key not in (r.secret_sha256, r.name, r.id) for r in rows)


@pytest.mark.parametrize(
    "key,status",
    [
        (None, 401),
        ("not-a-key", 401),
        ("gpc_000000000000_" + "A" * 43, 401),
    ],
)
def test_writes_need_a_valid_key(client, key, status):
    headers = {"X-API-Key": key} if key else {}
    r = client.put("/v1/admin/barebones/bb-test", json=BAREBONE, headers=headers)
    assert r.status_code == status
    assert r.headers["content-type"] == "application/problem+json"
    assert r.headers["www-authenticate"].startswith("ApiKey")


def test_a_wrong_secret_for_a_real_key_id_is_refused(client, keyset):
    real = keyset["write"]
    forged = real[:-1] + ("A" if real[-1] != "A" else "B")
    r = client.put("/v1/admin/barebones/bb-test", json=BAREBONE, headers={"X-API-Key": forged})
    assert r.status_code == 401


def test_a_read_key_cannot_write_and_a_revoked_key_stops_working(client, engine, keyset):
    r = client.put(
        "/v1/admin/barebones/bb-test", json=BAREBONE, headers={"X-API-Key": keyset["read"]}
    )
    assert r.status_code == 403 and "write" in r.json()["detail"]
    with Session(engine) as s:
        row, key = keys.create(s, "temp", ["read"])
        assert client.get("/v1/admin/gpus/rtx-3090", headers={"X-API-Key": key}).status_code == 200
        keys.revoke(s, row.id)
    r = client.get("/v1/admin/gpus/rtx-3090", headers={"X-API-Key": key})
    assert r.status_code == 401 and "revoked" in r.json()["detail"]


def test_a_key_stops_working_when_it_expires(client, engine):
    with Session(engine) as s:
        row, key = keys.create(
            s, "visitor", ["read"], dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)
        )
        assert client.get("/v1/admin/gpus/rtx-3090", headers={"X-API-Key": key}).status_code == 200
        later = dt.datetime.now(dt.UTC) + dt.timedelta(hours=2)
        assert keys.expired(s.get(ApiKey, row.id), later)
        # Expire it now (as the clock would) and ask again.
        stored = s.get(ApiKey, row.id)
        stored.expires_at = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
        s.add(stored)
        s.commit()
    r = client.get("/v1/admin/gpus/rtx-3090", headers={"X-API-Key": key})
    assert r.status_code == 401 and "expired" in r.json()["detail"]
    with Session(engine) as s, pytest.raises(ValueError, match="not in the future"):
        keys.create(s, "late", ["read"], dt.datetime.now(dt.UTC) - dt.timedelta(days=1))


def test_reads_stay_public(client):
    assert client.get("/v1/barebones").status_code == 200
    assert client.get("/v1/cloud-offers", params={"limit": 1}).status_code == 200


def test_create_then_update_with_if_match(client, engine, keyset):
    w = {"X-API-Key": keyset["write"]}
    rev = _revision(engine)
    r = client.put("/v1/admin/barebones/bb-test", json=BAREBONE, headers=w)
    assert r.status_code == 201, r.text
    tag = r.headers["etag"]
    assert r.json()["etag"] == tag and _revision(engine) == rev + 1
    listed = {b["id"]: b for b in client.get("/v1/barebones").json()["data"]}
    assert listed["bb-test"]["price_usd"] == 1000

    # Reading it back gives the same ETag.
    assert client.get("/v1/admin/barebones/bb-test", headers=w).headers["etag"] == tag
    # No If-Match: 428, with the current ETag to use.
    r = client.put("/v1/admin/barebones/bb-test", json={**BAREBONE, "price_usd": 1100}, headers=w)
    assert r.status_code == 428 and r.json()["current_etag"] == tag
    # A stale ETag: 412.
    r = client.put(
        "/v1/admin/barebones/bb-test",
        json={**BAREBONE, "price_usd": 1100, "as_of": "2026-02-01"},
        headers={**w, "If-Match": '"0000"'},
    )
    assert r.status_code == 412 and r.json()["current_etag"] == tag
    # The current ETag: 200, a new ETag, the new price from 2026-02-01, the old one before.
    r = client.put(
        "/v1/admin/barebones/bb-test",
        json={**BAREBONE, "price_usd": 1100, "as_of": "2026-02-01"},
        headers={**w, "If-Match": tag},
    )
    assert r.status_code == 200 and r.headers["etag"] != tag
    now = {b["id"]: b for b in client.get("/v1/barebones").json()["data"]}["bb-test"]
    then = {
        b["id"]: b
        for b in client.get("/v1/barebones", params={"as_of": "2026-01-20"}).json()["data"]
    }["bb-test"]
    assert (now["price_usd"], now["as_of"]) == (1100, "2026-02-01")
    assert (then["price_usd"], then["as_of"]) == (1000, "2026-01-10")
    # The old ETag is now stale.
    r = client.put("/v1/admin/barebones/bb-test", json=BAREBONE, headers={**w, "If-Match": tag})
    assert r.status_code == 412
    # If-None-Match: * refuses to overwrite.
    r = client.put(
        "/v1/admin/barebones/bb-test", json=BAREBONE, headers={**w, "If-None-Match": "*"}
    )
    assert r.status_code == 412


def test_a_commitment_needs_its_term_and_bill(client, keyset):
    """An offer edited to committed_use without its term, or a term on an hourly offer, is a
    422 and changes nothing."""
    w = {"X-API-Key": keyset["write"]}
    oid = "gcp-a2-highgpu-1g-us-central1-committed-use-1y"
    row = client.get(f"/v1/admin/cloud-offers/{oid}", headers=w)
    assert row.status_code == 200 and row.json()["data"]["commitment_term_months"] == 12
    body = {k: v for k, v in row.json()["data"].items() if k != "id"}
    for change in ({"commitment_term_months": None}, {"pricing_model": "on_demand"}):
        r = client.put(
            f"/v1/admin/cloud-offers/{oid}",
            json={**body, **change},
            headers={**w, "If-Match": row.headers["etag"]},
        )
        assert r.status_code == 422 and "commitment_term_months" in r.text
    assert client.get(f"/v1/admin/cloud-offers/{oid}", headers=w).json() == row.json()


def test_an_offer_price_update_moves_break_even(client, keyset):
    """The seed's offer repriced from $2.14/h to $1.07/h (half): the daily cloud cost halves
    (15 % x 24 h x price), so break-even = 2200 / (3.6 x 1.07 - desktop $/day)."""
    w = {"X-API-Key": keyset["write"]}
    oid = "aws-p3.2xlarge-spot-seed-2020"
    row = client.get(f"/v1/admin/cloud-offers/{oid}", headers=w)
    data = row.json()["data"]
    body = {k: data[k] for k in data if k not in ("id",)}
    body.update(price_usd_per_hour=1.07, as_of="2026-03-01", source="repriced for a test")
    r = client.put(
        f"/v1/admin/cloud-offers/{oid}", json=body, headers={**w, "If-Match": row.headers["etag"]}
    )
    assert r.status_code == 200, r.text
    req = break_even(cloud={"price_usd_per_hour": None, "offer_id": oid})
    desktop_per_day = 0.45 * 3.6 * 0.12  # seed 001: 450 W busy, 15 % of 24 h, $0.12/kWh
    new = client.post("/v1/break-even", json=req).json()
    assert new["break_even_days"] == pytest.approx(2200 / (3.6 * 1.07 - desktop_per_day), abs=0.01)
    old = client.post("/v1/break-even", params={"as_of": "2026-02-01"}, json=req).json()
    assert old["break_even_days"] == pytest.approx(292.96)


def test_writes_are_validated_before_anything_is_stored(client, keyset):
    w = {"X-API-Key": keyset["write"]}
    future = (utc_today() + dt.timedelta(days=10)).isoformat()
    r = client.put("/v1/admin/barebones/bb-future", json={**BAREBONE, "as_of": future}, headers=w)
    assert r.status_code == 422 and "future" in r.json()["detail"]
    offer = {
        "provider": "aws",
        "instance_type": "x1",
        "gpu_id": "no-such-gpu",
        "gpu_count": 1,
        "pricing_model": "on_demand",
        "price_usd_per_hour": 1,
        "source": "s",
        "as_of": "2026-01-01",
    }
    r = client.put("/v1/admin/cloud-offers/aws-x1", json=offer, headers=w)
    assert r.status_code == 422 and "no-such-gpu" in r.json()["detail"]
    r = client.put("/v1/admin/barebones/bb-neg", json={**BAREBONE, "price_usd": -5}, headers=w)
    assert r.status_code == 422
    for rid in ("bb-future", "bb-neg"):
        assert client.get(f"/v1/admin/barebones/{rid}", headers=w).status_code == 404


def test_delete_needs_if_match_and_refuses_a_gpu_in_use(client, keyset):
    w = {"X-API-Key": keyset["write"]}
    tag = client.get("/v1/admin/gpus/rtx-3090", headers=w).headers["etag"]
    assert client.delete("/v1/admin/gpus/rtx-3090", headers=w).status_code == 428
    r = client.delete("/v1/admin/gpus/rtx-3090", headers={**w, "If-Match": tag})
    assert r.status_code == 409 and "cloud_offer" in r.json()["detail"]
    r = client.put("/v1/admin/barebones/bb-gone", json=BAREBONE, headers=w)
    r = client.delete("/v1/admin/barebones/bb-gone", headers={**w, "If-Match": r.headers["etag"]})
    assert r.status_code == 204
    assert client.get("/v1/admin/barebones/bb-gone", headers=w).status_code == 404


def test_a_benchmark_is_written_with_its_results(client, keyset):
    w = {"X-API-Key": keyset["write"]}
    body = {
        "name": "tiny",
        "settings": "ResNet-18, CIFAR-10, 1 epoch",
        "source": "our lab",
        "as_of": "2026-01-05",
        "results": [{"gpu_id": "rtx-3090", "seconds": 100}, {"gpu_id": "tesla-t4", "seconds": 250}],
    }
    r = client.put("/v1/admin/benchmarks/tiny", json=body, headers=w)
    assert r.status_code == 201
    run = client.post(
        "/v1/run-cost",
        json={
            "workload": {"benchmark": "tiny"},
            "options": [{"desktop": {"gpu": "3090", "total_price_usd": 2200}}],
            "electricity_price_usd_per_kwh": 0.12,
        },
    ).json()
    assert run["options"][0]["runtime_s"] == 100


def test_scenarios_round_trip_and_follow_prices(client, keyset):
    lab = {"X-API-Key": keyset["scenarios"]}
    req = break_even(cloud={"price_usd_per_hour": None, "offer_id": SEED_OFFER_ID})
    r = client.post("/v1/scenarios", json={"name": "lab plan", "break_even": req}, headers=lab)
    assert r.status_code == 201, r.text
    sid = r.json()["id"]
    assert r.headers["location"] == f"/v1/scenarios/{sid}"
    assert client.get(f"/v1/scenarios/{sid}").json()["request"] == req  # a shareable link
    assert sid in [s["id"] for s in client.get("/v1/scenarios", headers=lab).json()["data"]]
    # As of 2026-02-01 the seed's offer was still $2.14/h: the seed's 292.96 days.
    past = client.get(f"/v1/scenarios/{sid}/result", params={"as_of": "2026-02-01"}).json()
    assert past["break_even"]["break_even_days"] == pytest.approx(292.96)
    assert past["break_even"]["prices"]["prices_as_of"] == "2026-02-01"
    now = client.get(f"/v1/scenarios/{sid}/result").json()
    direct = client.post("/v1/break-even", json=req).json()
    assert now["break_even"]["break_even_days"] == direct["break_even_days"]
    assert client.delete(f"/v1/scenarios/{sid}", headers=lab).status_code == 204
    assert client.get(f"/v1/scenarios/{sid}").status_code == 404


SEED_REQ = break_even(utilization=None, electricity_price_usd_per_kwh=None)


def test_scenarios_belong_to_the_key_that_saved_them(client, keyset):
    lab, other = {"X-API-Key": keyset["scenarios"]}, {"X-API-Key": keyset["other lab"]}
    body = {"name": "mine", "break_even": SEED_REQ}
    # anonymous callers and keys without the scope cannot save, list or delete
    assert client.post("/v1/scenarios", json=body).status_code == 401
    assert client.get("/v1/scenarios").status_code == 401
    auditor = {"X-API-Key": keyset["read"]}
    assert client.post("/v1/scenarios", json=body, headers=auditor).status_code == 403
    sid = client.post("/v1/scenarios", json=body, headers=lab).json()["id"]
    # another key neither sees it in its list nor can delete it (404, not 403)
    assert sid not in [s["id"] for s in client.get("/v1/scenarios", headers=other).json()["data"]]
    r = client.delete(f"/v1/scenarios/{sid}", headers=other)
    assert r.status_code == 404 and r.headers["content-type"] == "application/problem+json"
    assert client.delete(f"/v1/scenarios/{sid}").status_code == 401
    assert client.get(f"/v1/scenarios/{sid}").status_code == 200  # still there, shareable
    assert client.delete(f"/v1/scenarios/{sid}", headers=lab).status_code == 204


def test_scenario_quota_per_key(client, keyset):
    lab = {"X-API-Key": keyset["other lab"]}
    settings = Settings(max_scenarios_per_key=2)
    app.dependency_overrides[deps.settings] = lambda: settings
    try:
        held = client.get("/v1/scenarios", headers=lab).json()["count"]
        for i in range(2 - held):
            r = client.post(
                "/v1/scenarios", json={"name": f"s{i}", "break_even": SEED_REQ}, headers=lab
            )
            assert r.status_code == 201
        r = client.post(
            "/v1/scenarios", json={"name": "one too many", "break_even": SEED_REQ}, headers=lab
        )
        assert r.status_code == 429 and int(r.headers["retry-after"]) > 0
        assert r.json()["type"].endswith("/quota-exceeded")
        assert client.get("/v1/scenarios", headers=lab).json()["count"] == 2
    finally:
        app.dependency_overrides.pop(deps.settings, None)


def test_a_scenario_that_cannot_be_answered_is_not_stored(client, keyset):
    lab = {"X-API-Key": keyset["scenarios"]}
    count = client.get("/v1/scenarios", headers=lab).json()["count"]
    r = client.post(
        "/v1/scenarios",
        json={
            "name": "x",
            "break_even": {
                "desktop": {"gpu": "no such gpu 9999", "total_price_usd": 1000},
                "cloud": {"price_usd_per_hour": 1},
            },
        },
        headers=lab,
    )
    assert r.status_code == 404
    r = client.post("/v1/scenarios", json={"name": "x"}, headers=lab)
    assert r.status_code == 422
    assert client.get("/v1/scenarios", headers=lab).json()["count"] == count


def test_openapi_declares_links_between_scenario_operations(client):
    ops = client.get("/openapi.json").json()["paths"]
    links = ops["/v1/scenarios"]["post"]["responses"]["201"]["links"]
    assert {v["operationId"] for v in links.values()} == {
        "scenarios-get_scenario",
        "scenarios-scenario_result",
        "scenarios-scenario_report",
        "scenarios-delete_scenario",
    }
    op_ids = {op["operationId"] for item in ops.values() for op in item.values()}
    assert {v["operationId"] for v in links.values()} <= op_ids
