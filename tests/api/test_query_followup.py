"""A follow-up changes the question before it (issue 45: "and at 50 %?" in the same Slack
thread): ``GET /v1/query?q=<follow-up>&previous=<question>`` answers the earlier question
with only what the follow-up names changed, and says what changed."""

from __future__ import annotations

import pytest

FIRST = "break-even for 3090 at 15% util"


def ask(client, q: str, previous: str | None = None) -> dict:
    params = {"q": q} | ({"previous": previous} if previous else {})
    r = client.get("/v1/query", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def test_a_follow_up_changes_one_value_and_keeps_the_rest(client):
    first = ask(client, FIRST)
    after = ask(client, "and at 50%?", previous=FIRST)
    assert after["answered"] and after["intent"] == "break_even"
    assert after["result"]["utilization"] == 0.5
    assert after["request"]["desktop"] == first["request"]["desktop"]  # same 3090 box
    assert after["query"] == "and at 50%?" and after["follows"] == FIRST
    follows = after["defaults"][0]
    assert follows["name"] == "follows" and "utilization = 0.5" in follows["source"]
    # the follow-up alone is not a question
    assert not ask(client, "and at 50%?")["answered"]


@pytest.mark.parametrize(
    ("follow_up", "check"),
    [
        ("what about a 4090", lambda b: b["request"]["desktop"]["gpu"] == "rtx-4090"),
        ("in germany?", lambda b: b["request"]["region"] == "de"),
        ("vs lambda", lambda b: b["result"]["cloud"]["provider"] == "lambda"),
        ("and spot?", lambda b: b["result"]["cloud"]["pricing_model"] == "spot"),
        ("for 3 years?", lambda b: any(f["label"] == "Over 1,095 days" for f in b["facts"])),
    ],
)
def test_each_kind_of_follow_up_keeps_the_break_even(client, follow_up, check):
    body = ask(client, follow_up, previous=FIRST)
    assert body["answered"] and body["intent"] == "break_even", body["headline"]
    assert body["result"]["utilization"] == 0.15  # kept from the first question
    assert check(body), body["request"]


def test_a_follow_up_may_ask_for_another_answer_by_name(client):
    body = ask(client, "carbon?", previous=FIRST)
    assert body["answered"] and body["intent"] == "carbon"
    assert body["request"]["gpu"] == "rtx-3090" and body["request"]["utilization"] == 0.15


def test_a_follow_up_can_supply_what_was_asked_back(client):
    asked = ask(client, "break-even at 20% util")
    assert not asked["answered"] and "Which GPU" in asked["headline"]
    body = ask(client, "a 4090", previous="break-even at 20% util")
    assert body["answered"] and body["request"]["desktop"]["gpu"] == "rtx-4090"
    assert body["result"]["utilization"] == 0.2


def test_an_llm_follow_up_is_read_with_its_question(client):
    first = "can I run llama 3.1 70b on two 3090s"
    body = ask(client, "at int4", previous=first)
    assert body["answered"] and body["request"]["precision"] == "int4"
    assert body["request"]["gpus"] == ["rtx-3090"] and body["request"]["gpu_count"] == 2


def test_a_question_without_its_gpu_is_asked_back_with_three_cards(client):
    body = ask(client, "break-even at 20% util")
    assert not body["answered"] and body["headline"].startswith("Which GPU")
    gpus = {g["id"]: g for g in client.get("/v1/gpus", params={"limit": 500}).json()["data"]}
    chosen = [c["q"].removeprefix("a ") for c in body["choices"]]
    assert len(chosen) == 3
    # one card of each class, each with a price to buy it at
    assert [gpus[g]["form_factor"].split("_")[0] for g in chosen] == [
        "consumer",
        "workstation",
        "datacenter",
    ]
    for choice in body["choices"]:
        assert choice["previous"] == "break-even at 20% util"
        picked = ask(client, choice["q"], previous=choice["previous"])
        assert picked["answered"] and picked["result"]["utilization"] == 0.2


def test_a_run_without_its_length_is_asked_back_in_hours(client):
    body = ask(client, "run cost on a 4090")
    assert not body["answered"] and [c["label"] for c in body["choices"]] == [
        "1 h",
        "10 h",
        "100 h",
    ]
    one, ten = (ask(client, c["q"], previous=c["previous"]) for c in body["choices"][:2])
    assert one["answered"] and ten["answered"]
    cost = [b["result"]["options"][0]["cost_usd"] for b in (one, ten)]
    assert cost[1] == pytest.approx(10 * cost[0])  # the same offer, ten times the hours


def test_an_answered_question_offers_no_choices(client):
    assert ask(client, FIRST)["choices"] == []


def test_follow_ups_chain_one_per_line(client):
    turns = f"{FIRST}\nand at 50%?"
    body = ask(client, "in germany?", previous=turns)
    assert body["answered"] and body["result"]["utilization"] == 0.5
    assert body["request"]["region"] == "de" and body["request"]["desktop"]["gpu"] == "rtx-3090"
