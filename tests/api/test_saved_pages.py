"""Saved calculator answers (``POST /s``, ``GET /s/{id}``, ``POST /s/{id}/delete``): seed 001
saved from the break-even page and read back by another browser with the same answer; only
the browser that saved it deletes it; a write without the page's cookie or form token is a
403 and stores nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.api import browser
from app.db import get_engine
from app.main import app
from app.models import Scenario
from tests.api.test_pages import SEED_FORM
from tests.seed_values import SEED_001_DAYS


@pytest.fixture()
def client(engine) -> Iterator[TestClient]:
    """A browser on the shared test database with a session per request, as deployed (the
    suite's ``client`` reads through one rolled-back session, whose snapshot would not see
    the answers saved through the engine after its first read)."""
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def _answer(page: str) -> str:
    found = re.findall(r'class="answer"[^>]*>([^<]*)<', page)
    return found[0] if found else ""


def _hidden(page: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', page)
    assert found, f"no {name} field on the page"
    return found.group(1).replace("&amp;", "&")


def _scenarios() -> int:
    with get_engine().connect() as conn:
        return conn.execute(select(func.count()).select_from(Scenario)).scalar_one()


def _stored(link: str) -> bool:
    """Whether the scenario of ``link`` is in the database (read outside the test's session,
    which keeps the rows it has read)."""
    with get_engine().connect() as conn:
        found = select(Scenario.id).where(Scenario.id == link.rsplit("/", 1)[1])
        return conn.execute(found).first() is not None


def _save(client: TestClient, page: str, name: str = "seed 001") -> str:
    r = client.post(
        "/s",
        data={
            "page": _hidden(page, "page"),
            "query": _hidden(page, "query"),
            "csrf": _hidden(page, "csrf"),
            "name": name,
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return r.headers["location"]


def test_seed_001_saved_and_opened_by_another_browser(client):
    page = client.get("/break-even", params=SEED_FORM)
    assert browser.COOKIE in page.cookies  # the first page sets the browser's cookie
    cookie = page.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie
    link = _save(client, page.text)
    assert re.fullmatch(r"/s/[0-9a-f]{32}", link)
    try:
        mine = client.get(link)
        assert mine.status_code == 200
        assert _answer(mine.text) == f"Break-even after {SEED_001_DAYS:.2f} days"
        assert "Delete this saved answer" in mine.text and "seed 001" in mine.text
        with TestClient(app, raise_server_exceptions=False) as other:
            theirs = other.get(link)
            assert theirs.status_code == 200
            assert _answer(theirs.text) == _answer(mine.text)
            assert "Delete this saved answer" not in theirs.text  # read-only for them
            # their own browser's valid form token: still not theirs to delete
            csrf = browser.csrf_token(other.cookies[browser.COOKIE])
            refused = other.post(f"{link}/delete", data={"csrf": csrf}, follow_redirects=False)
            assert refused.status_code == 404
            assert _stored(link)
        csv = client.get(link, params={"download": "csv"})
        assert csv.status_code == 200 and csv.headers["content-type"].startswith("text/csv")
        assert f"{SEED_001_DAYS:,.2f}" in csv.text and link in csv.text
    finally:
        gone = client.post(
            f"{link}/delete", data={"csrf": _hidden(mine.text, "csrf")}, follow_redirects=False
        )
    assert gone.status_code == 303
    assert not _stored(link)


def test_a_run_cost_answer_is_saved_with_the_offers_it_chose(client):
    page = client.get("/run-cost", params={"benchmark": "efficientnet", "rent_gpus": "a100"})
    assert page.status_code == 200
    link = _save(client, page.text, "efficientnet on an A100")
    try:
        saved = client.get(link)
        assert _answer(saved.text) == _answer(page.text)
        assert "offer_ids=" in saved.text  # the chosen offer is pinned by its id
    finally:
        client.post(f"{link}/delete", data={"csrf": _hidden(saved.text, "csrf")})
    assert not _stored(link)


def test_writes_without_the_cookie_or_the_form_token_are_refused(client):
    page = client.get("/break-even", params=SEED_FORM)
    before = _scenarios()
    form = {"page": "/break-even", "query": _hidden(page.text, "query"), "name": "x"}
    wrong = client.post("/s", data={**form, "csrf": "0" * 64}, follow_redirects=False)
    assert wrong.status_code == 403
    assert wrong.headers["content-type"].startswith("application/problem+json")
    with TestClient(app, raise_server_exceptions=False) as stranger:  # no cookie at all
        forged = stranger.post("/s", data={**form, "csrf": _hidden(page.text, "csrf")})
        assert forged.status_code == 403
    unknown = client.post(
        "/s", data={**form, "page": "/no-such-page", "csrf": _hidden(page.text, "csrf")}
    )
    assert unknown.status_code == 404
    bad = client.post(
        "/s",
        data={**form, "query": "gpu=rtx-3090&utilization=150", "csrf": _hidden(page.text, "csrf")},
    )
    assert bad.status_code == 422
    assert _scenarios() == before


def test_an_unknown_saved_answer_is_a_404(client):
    assert client.get("/s/" + "0" * 32).status_code == 404


def test_every_calculator_saves_and_the_api_evaluates_it(client):
    """A compare, a fleet plan, a carbon and an LLM answer saved from their pages reopen
    with the same headline, and ``GET /v1/scenarios/{id}/result`` answers each in the field
    of its kind."""
    asked = {
        "/compare": ({"gpu_hours_per_month": "100", "gpu": "a100"}, "compare"),
        "/plan": (
            {"gpu": "rtx-4090", "baseline_gpu_hours_per_month": "300", "months": "12"},
            "plan",
        ),
        "/carbon": ({"gpu": "h100-sxm", "gpu_count": "8", "hours": "100"}, "carbon"),
        "/llm": (
            {"model": "llama-3.1-8b", "task": "lora", "tokens": "1000000", "gpus": "rtx-4090"},
            "llm_estimate",
        ),
    }
    for path, (params, kind) in asked.items():
        page = client.get(path, params=params)
        assert page.status_code == 200, (path, page.text[-500:])
        link = _save(client, page.text, f"saved from {path}")
        try:
            saved = client.get(link)
            assert _answer(saved.text) == _answer(page.text), path
            result = client.get(f"/v1/scenarios/{link.rsplit('/', 1)[1]}/result").json()
            assert result["scenario"]["kind"] == kind and result[kind] is not None, path
            report = client.get(f"/v1/scenarios/{link.rsplit('/', 1)[1]}/report")
            assert report.status_code == 404 and link in report.json()["detail"]
        finally:
            client.post(f"{link}/delete", data={"csrf": _hidden(saved.text, "csrf")})
        assert not _stored(link)
