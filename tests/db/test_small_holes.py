"""Issue 36's small holes, on SQLite and (when configured) PostgreSQL: a NUL character in an
admin write is a 422 and in an imported row rejects that row only; an import nested
thousands deep is a 422; ``If-Match: *`` is refused; a price an admin changes without giving
a new ``as_of`` is dated by the write."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from sqlmodel import Session

from app.store import keys
from tests.clock import utc_today
from tests.dbs import seeded_client, seeded_engine  # noqa: F401  (fixtures)

OFFER = {
    "provider": "lambda",
    "instance_type": "gpu_1x_test",
    "gpu_id": "a100-40gb",
    "gpu_count": 1,
    "pricing_model": "on_demand",
    "price_usd_per_hour": 1.29,
}


@pytest.fixture(scope="module")
def key(engine) -> dict[str, str]:
    with Session(engine) as s:
        return {"X-API-Key": keys.create(s, "admin", ["read", "write"])[1]}


def _row(client, key, path):
    r = client.get(path, headers=key)
    assert r.status_code == 200, r.text
    return {k: v for k, v in r.json()["data"].items() if k != "id"}, r.headers["etag"]


def test_a_nul_in_an_admin_write_is_a_422(client, key):
    path = "/v1/admin/gpus/rtx-3090"
    data, tag = _row(client, key, path)
    for field, value in (("notes", "fine\x00then"), ("name", "RTX\x003090")):
        r = client.put(path, json={**data, field: value}, headers={**key, "If-Match": tag})
        assert r.status_code == 422, r.text
        assert r.json()["errors"][0]["loc"][-1] == field
    # Nothing was written: the ETag is unchanged.
    assert _row(client, key, path)[1] == tag


def _import(client, key, body: bytes, ctype: str, name: str):
    return client.post(
        "/v1/admin/imports",
        params={"filename": name},
        content=body,
        headers={**key, "Content-Type": ctype},
    )


def test_a_nul_in_an_imported_row_rejects_that_row_and_the_rest_imports(client, key):
    offers = [
        {**OFFER, "instance_type": "gpu_1x_nul_a", "notes": "bad\x00row"},
        {**OFFER, "instance_type": "gpu_1x_nul_b"},
    ]
    r = _import(client, key, json.dumps({"offers": offers}).encode(), "application/json", "o.json")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["totals"]["added"] == 1
    assert len(body["rejected"]) == 1 and "NUL" in body["rejected"][0]
    assert body["rejected"][0].startswith("o.json:1:")
    # The same in gpucost's CSV: line 2 (the header is line 1) is rejected.
    header = "provider,instance_type,gpu_id,gpu_count,pricing_model,price_usd_per_hour"
    csv = f"{header}\nlambda,gpu_1x_nul\x00c,a100-40gb,1,on_demand,1.29\n"
    csv += "lambda,gpu_1x_nul_d,a100-40gb,1,on_demand,1.29\n"
    r = _import(client, key, csv.encode(), "text/csv", "o.csv")
    assert r.status_code == 200, r.text
    assert r.json()["totals"]["added"] == 1
    assert r.json()["rejected"][0].startswith("o.csv:2:")


def test_an_import_nested_thousands_deep_is_a_422(client, key):
    deep = b"[" * 3000 + b"]" * 3000
    r = _import(client, key, deep, "application/json", "deep.json")
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert "depth" in r.json()["detail"]


def test_if_match_star_is_refused(client, key):
    path = "/v1/admin/gpus/rtx-3090"
    data, tag = _row(client, key, path)
    r = client.put(path, json=data, headers={**key, "If-Match": "*"})
    assert r.status_code == 428, r.text
    assert r.json()["current_etag"] == tag and "If-Match: *" in r.json()["detail"]


def test_a_changed_price_without_a_new_as_of_is_dated_by_the_write(client, key):
    offer_id = "aws-p3.2xlarge-spot-seed-2020"
    path = f"/v1/admin/cloud-offers/{offer_id}"
    data, tag = _row(client, key, path)
    seed_day = data["as_of"]
    assert seed_day < utc_today().isoformat()
    new = {**data, "price_usd_per_hour": round(data["price_usd_per_hour"] * 1.5, 4)}
    before = utc_today()
    r = client.put(path, json=new, headers={**key, "If-Match": tag})
    assert r.status_code == 200, r.text
    public = client.get(f"/v1/cloud-offers/{offer_id}").json()
    assert public["as_of"] in {before.isoformat(), utc_today().isoformat()}
    assert public["price_usd_per_hour"] == pytest.approx(new["price_usd_per_hour"])
    # The seed's day still has the seed's price.
    then = client.get(f"/v1/cloud-offers/{offer_id}", params={"as_of": seed_day}).json()
    assert then["price_usd_per_hour"] == pytest.approx(data["price_usd_per_hour"])
    # A body that names its own day keeps it.
    data, tag = _row(client, key, path)
    day = (utc_today() - dt.timedelta(days=1)).isoformat()
    r = client.put(
        path,
        json={**data, "price_usd_per_hour": 9.99, "as_of": day},
        headers={**key, "If-Match": tag},
    )
    assert r.status_code == 200, r.text
    assert client.get(f"/v1/cloud-offers/{offer_id}", params={"as_of": day}).json()[
        "price_usd_per_hour"
    ] == pytest.approx(9.99)
