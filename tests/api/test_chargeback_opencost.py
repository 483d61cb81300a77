"""``POST /v1/chargeback`` from Kubernetes: OpenCost's allocation answer
(``tests/fixtures/opencost_2026-10_allocation.json``: two steps of a window from
2026-09-16 to 2026-11-01 on one GPU cluster, pods of two labs labelled with their user, one
labelled the Prometheus way, one without a user label, CPU-only system pods, OpenCost's
``__idle__`` entries and two allocations that cannot be read) charged per namespace (lab) and
user. Expected GPU-hours are derived here from the JSON with the standard library: each
allocation's ``gpuHours`` spread evenly from its ``start`` to its ``end``, clipped to
October; costs from ``POST /v1/owned-rates`` at the measured utilization."""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parents[1] / "fixtures" / "opencost_2026-10_allocation.json"
ANSWER = FIXTURE.read_text()
OCTOBER = (dt.datetime(2026, 10, 1, tzinfo=dt.UTC), dt.datetime(2026, 11, 1, tzinfo=dt.UTC))
MACHINE = {"gpu": "a100-80gb", "gpu_count": 8, "count": 2, "total_price_usd": 240000}
BODY = {
    "usage": {"format": "opencost", "text": ANSWER},  # user_label: `user`, the default
    "machines": [{"partition": "gpu-k8s", "cluster": "gpu-k8s", "machine": MACHINE}],
    "period": {"start": "2026-10-01", "end": "2026-11-01"},
    "region": "de",
    "time_zone": "UTC",
}


def _t(value: str) -> dt.datetime:
    return dt.datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)


def _expected(label: str = "user") -> tuple[dict[tuple[str, str], float], dict[str, int]]:
    """October GPU-hours by (namespace, the pod label ``label``) and what else the answer
    holds."""
    hours: dict[tuple[str, str], float] = defaultdict(float)
    other = {"own": 0, "without_gpus": 0, "unread": 0}
    for step in json.loads(ANSWER)["data"]:
        for name, a in step.items():
            if name.startswith("__"):
                other["own"] += 1
                continue
            try:
                gpu_hours = float(a["gpuHours"])
            except ValueError:
                other["unread"] += 1
                continue
            if gpu_hours == 0:
                other["without_gpus"] += 1
                continue
            start, end = _t(a["start"]), _t(a["end"])
            if end <= start:
                other["unread"] += 1
                continue
            labels = a["properties"]["labels"]
            user = labels.get(label) or "(no user)"
            per_hour = gpu_hours / ((end - start).total_seconds() / 3600)
            lo, hi = max(start, OCTOBER[0]), min(end, OCTOBER[1])
            if hi > lo:
                hours[(a["properties"]["namespace"], user)] += (
                    per_hour * (hi - lo).total_seconds() / 3600
                )
    return hours, other


def _labelled_users(body: dict, label: str) -> dict:
    return {**body, "usage": {**body["usage"], "user_label": label}}


@pytest.fixture()
def answer(client):
    r = client.post("/v1/chargeback", json=BODY)
    assert r.status_code == 200, r.text
    return r.json()


def test_each_namespace_and_user_is_charged_the_gpu_hours_opencost_gives(answer):
    hours, other = _expected()
    by_account: dict[str, float] = defaultdict(float)
    for (account, _), h in hours.items():
        by_account[account] += h
    assert set(by_account) == {"nlp-lab", "vision-lab"}
    got = {a["account"]: a["gpu_hours"] for a in answer["accounts"]}
    assert got == pytest.approx(dict(by_account), rel=1e-6)
    for a in answer["accounts"]:
        for u in a["users"]:
            assert u["gpu_hours"] == pytest.approx(hours[(a["account"], u["user"])], rel=1e-6)
    assert answer["steps"] == other["own"] == 2
    assert answer["without_gpus"] == other["without_gpus"] == 4
    assert len(answer["unread"]) == other["unread"] == 2
    assert answer["unmatched"] == {}


def test_the_user_label_is_read_as_given_or_in_prometheus_form(client, answer):
    users = {u["user"] for a in answer["accounts"] for u in a["users"]}
    assert {"alice", "bob", "chen", "dana", "emil", "(no user)"} == users
    # The notebook's label is kept in Prometheus form: named the Kubernetes way, it is found.
    r = client.post("/v1/chargeback", json=_labelled_users(BODY, "team.example.org/user"))
    assert r.status_code == 200
    hours, _ = _expected("team_example_org_user")
    got = {
        (a["account"], u["user"]): u["gpu_hours"] for a in r.json()["accounts"] for u in a["users"]
    }
    assert got == pytest.approx(dict(hours), rel=1e-6)
    assert set(got) == {
        ("vision-lab", "emil"),
        ("nlp-lab", "(no user)"),
        ("vision-lab", "(no user)"),
    }


def test_the_allocations_that_cannot_be_read_are_named(answer):
    reasons = " ".join(u["reason"] for u in answer["unread"])
    assert "broken-0" in reasons and "'lots'" in reasons
    assert "broken-1" in reasons and "is not after start" in reasons


def test_the_cluster_is_charged_its_owned_rate_at_the_measured_utilization(client, answer):
    hours, _ = _expected()
    used = sum(hours.values())
    [got] = answer["machines"]
    capacity = 16 * 31 * 24
    assert got["gpu_hours"] == pytest.approx(used, rel=1e-6)
    assert got["utilization"] == pytest.approx(used / capacity, rel=1e-6)
    owned = client.post(
        "/v1/owned-rates",
        json={"machines": [{**MACHINE, "utilization": got["utilization"]}], "region": "de"},
    )
    rate = owned.json()["machines"][0]["cost_usd_per_gpu_hour"]
    assert got["owned_usd_per_gpu_hour"] == pytest.approx(rate, rel=1e-6)
    assert answer["total"]["owned_cost_usd"] == pytest.approx(used * rate, rel=1e-6)


@pytest.mark.parametrize(
    "text,why",
    [("not json", "not JSON"), ('{"data": 3}', "not an OpenCost allocation answer")],
)
def test_text_that_is_no_allocation_answer_is_a_422(client, text, why):
    body = {**BODY, "usage": {**BODY["usage"], "text": text}}
    r = client.post("/v1/chargeback", json=body)
    assert r.status_code == 422
    assert r.headers["content-type"] == "application/problem+json"
    assert why in r.text
