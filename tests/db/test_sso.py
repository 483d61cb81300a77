"""Single sign-on through the institution's proxy (issue 47 part 4): behind oauth2-proxy the
user and group headers are believed only on a connection from a trusted proxy (the one
setting GPUCOST_FORWARDED_ALLOW_IPS, judged on the raw peer address); the signed-in user owns
what they save, a group maps to a lab, a lab's members list what is shared with it, only the
owner deletes; API keys keep working for machines. Forged headers from any other peer are
ignored. Runs on SQLite and, when configured, PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.main import create_app
from app.settings import get_settings
from app.store import keys
from tests.dbs import app_on, seeded_engine  # noqa: F401  (fixture)
from tests.factories import break_even

PROXY = "10.0.0.7"  # the trusted proxy (oauth2-proxy's pod)
ELSEWHERE = "192.0.2.44"  # any other peer (TEST-NET-1)
BODY = {"name": "A100 box vs cloud", "break_even": break_even(utilization=None)}


@pytest.fixture(scope="module")
def sso_app(engine):
    """The app as a site configures it: oauth2-proxy's X-Auth-Request-* headers, one trusted
    proxy, two IdP groups mapped to labs."""
    mp = pytest.MonkeyPatch()
    mp.setenv("GPUCOST_SSO_USER_HEADER", "X-Auth-Request-User")
    mp.setenv("GPUCOST_SSO_GROUPS_HEADER", "X-Auth-Request-Groups")
    mp.setenv("GPUCOST_FORWARDED_ALLOW_IPS", f"127.0.0.1,{PROXY}")
    labs = {"/ml-lab": "ml-lab", "/vision": "vision"}
    mp.setenv("GPUCOST_SSO_LAB_GROUPS", json.dumps(labs))
    get_settings.cache_clear()
    try:
        built = create_app()
    finally:
        mp.undo()
        get_settings.cache_clear()
    with app_on(engine, built):
        yield built


def _client(app, peer: str) -> Iterator[TestClient]:
    with TestClient(app, client=(peer, 40000), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def via_proxy(sso_app) -> Iterator[TestClient]:
    yield from _client(sso_app, PROXY)


@pytest.fixture(scope="module")
def direct(sso_app) -> Iterator[TestClient]:
    yield from _client(sso_app, ELSEWHERE)


def _as(user: str, *groups: str) -> dict[str, str]:
    return {"X-Auth-Request-User": user, "X-Auth-Request-Groups": ",".join(groups)}


ADA = _as("ada@uni.example", "/ml-lab", "/staff")
BOB = _as("bob@uni.example", "/ml-lab")
EVE = _as("eve@uni.example", "/vision")


def _ids(client, headers) -> list[str]:
    r = client.get("/v1/scenarios", headers=headers)
    assert r.status_code == 200, r.text
    return [s["id"] for s in r.json()["data"]]


def test_a_signed_in_user_owns_what_they_save_and_shares_it_with_a_lab(via_proxy):
    r = via_proxy.post("/v1/scenarios", params={"lab": "ml-lab"}, json=BODY, headers=ADA)
    assert r.status_code == 201, r.text
    shared = r.json()
    assert shared["lab"] == "ml-lab" and shared["saved_by"] == "ada@uni.example"
    private = via_proxy.post("/v1/scenarios", json=BODY, headers=ADA).json()
    assert private["lab"] is None

    assert {shared["id"], private["id"]} <= set(_ids(via_proxy, ADA))
    # Bob is in ml-lab: he lists the shared one, not Ada's private one; Eve (vision) neither.
    assert shared["id"] in _ids(via_proxy, BOB) and private["id"] not in _ids(via_proxy, BOB)
    assert not {shared["id"], private["id"]} & set(_ids(via_proxy, EVE))
    # Only the owner deletes, a lab member included (404: not revealed as someone else's).
    assert via_proxy.delete(f"/v1/scenarios/{shared['id']}", headers=BOB).status_code == 404
    assert via_proxy.delete(f"/v1/scenarios/{shared['id']}", headers=ADA).status_code == 204
    assert via_proxy.delete(f"/v1/scenarios/{private['id']}", headers=ADA).status_code == 204
    assert shared["id"] not in _ids(via_proxy, BOB)


def test_a_group_outside_the_mapping_is_no_lab(via_proxy):
    r = via_proxy.post("/v1/scenarios", params={"lab": "/staff"}, json=BODY, headers=ADA)
    assert r.status_code == 403 and "ml-lab" in r.json()["detail"]
    r = via_proxy.post("/v1/scenarios", params={"lab": "vision"}, json=BODY, headers=ADA)
    assert r.status_code == 403


def test_forged_headers_from_another_peer_are_ignored(via_proxy, direct):
    saved = via_proxy.post("/v1/scenarios", params={"lab": "ml-lab"}, json=BODY, headers=ADA)
    sid = saved.json()["id"]
    # The same headers sent straight to the service, not through the proxy: not signed in.
    assert direct.post("/v1/scenarios", json=BODY, headers=ADA).status_code == 401
    assert direct.get("/v1/scenarios", headers=ADA).status_code == 401
    assert direct.delete(f"/v1/scenarios/{sid}", headers=ADA).status_code == 401
    # A forwarded address does not make a direct peer a proxy.
    forged = {**ADA, "X-Forwarded-For": PROXY}
    assert direct.get("/v1/scenarios", headers=forged).status_code == 401
    assert via_proxy.delete(f"/v1/scenarios/{sid}", headers=ADA).status_code == 204


def test_the_proxy_without_a_user_header_signs_no_one_in(via_proxy):
    assert via_proxy.get("/v1/scenarios").status_code == 401
    blank = {"X-Auth-Request-User": "  ", "X-Auth-Request-Groups": "/ml-lab"}
    assert via_proxy.get("/v1/scenarios", headers=blank).status_code == 401


def test_api_keys_keep_working_and_own_apart_from_users(via_proxy, direct, engine):
    with Session(engine) as s:
        key = keys.create(s, "budget tool", ["scenarios"])[1]
    machine = {"X-API-Key": key}
    sid = direct.post("/v1/scenarios", json=BODY, headers=machine).json()["id"]
    assert sid in _ids(direct, machine)
    assert sid not in _ids(via_proxy, ADA)
    # A key belongs to no lab.
    r = direct.post("/v1/scenarios", params={"lab": "ml-lab"}, json=BODY, headers=machine)
    assert r.status_code == 403
    # A user cannot delete a key's scenario, nor a key a user's.
    assert via_proxy.delete(f"/v1/scenarios/{sid}", headers=ADA).status_code == 404
    mine = via_proxy.post("/v1/scenarios", json=BODY, headers=ADA).json()["id"]
    assert direct.delete(f"/v1/scenarios/{mine}", headers=machine).status_code == 404
    assert direct.delete(f"/v1/scenarios/{sid}", headers=machine).status_code == 204
    assert via_proxy.delete(f"/v1/scenarios/{mine}", headers=ADA).status_code == 204


def test_the_forwarded_client_address_comes_from_the_trusted_proxy_only(sso_app):
    """One setting for both: the rate limiter counts the forwarded client of a proxied
    request, and the direct peer of any other."""
    from app.api import proxy

    seen: list[str] = []

    async def record(scope, receive, send):
        seen.append(scope["client"][0])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    mw = proxy.TrustedProxies(record, f"127.0.0.1,{PROXY}", "X-Auth-Request-User", "X")
    for peer in (PROXY, ELSEWHERE):
        c = TestClient(mw, client=(peer, 1))  # no lifespan: `record` answers HTTP only
        c.get("/", headers={"X-Forwarded-For": "203.0.113.9"})
    assert seen == ["203.0.113.9", ELSEWHERE]


def test_saving_sharing_and_deleting_is_in_the_audit_log(via_proxy, engine):
    with Session(engine) as s:
        auditor = {"X-API-Key": keys.create(s, "auditor", ["read"])[1]}
    saved = via_proxy.post("/v1/scenarios", params={"lab": "ml-lab"}, json=BODY, headers=BOB)
    sid = saved.json()["id"]
    assert via_proxy.delete(f"/v1/scenarios/{sid}", headers=BOB).status_code == 204
    log = via_proxy.get("/v1/admin/audit", params={"limit": 50}, headers=auditor).json()
    mine = [e for e in log["events"] if e["target"] == f"scenario/{sid}"]
    assert [e["action"] for e in mine] == ["scenario.delete", "scenario.create"]
    assert {e["actor"] for e in mine} == {"user:bob@uni.example"}
    deleted, created = mine
    assert created["after"] == {"name": BODY["name"], "kind": "break_even", "lab": "ml-lab"}
    assert deleted["before"] == created["after"] and deleted["after"] is None


def test_single_sign_on_refuses_to_trust_every_peer():
    from pydantic import ValidationError

    from app.settings import Settings

    with pytest.raises(ValidationError, match="trusts every peer"):
        Settings(sso_user_header="X-Forwarded-User", forwarded_allow_ips="10.0.0.7, *")
    assert Settings(forwarded_allow_ips="*").sso_user_header is None  # no SSO: as before
