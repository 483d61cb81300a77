"""Slack's interactivity and Events API (issue 45): a choice clicked under a question asked
back is answered in its place, and a follow-up mention in a thread changes the thread's
question ("@gpucost and at 50%?"), not a new one. Requests are signed as Slack signs them
(slack-sdk's signer); what the service posts back to Slack is captured."""

from __future__ import annotations

import json
import urllib.parse

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, delete

from app.api import deps
from app.integrations import slack as slack_messages
from app.main import app
from app.models import SlackThread
from app.routers import slack as slack_router
from app.routers import slack_events
from app.settings import Settings
from tests.factories import SLACK_SECRET, forget_replays, slack_form, slack_signed

FIRST = "break-even for 3090 at 15% util"


def forget_threads(engine) -> None:
    with Session(engine) as s:
        s.exec(delete(SlackThread))
        s.commit()


@pytest.fixture()
def slack(engine, monkeypatch):
    settings = Settings(slack_signing_secret=SLACK_SECRET, slack_bot_token="xoxb-test")
    app.dependency_overrides[deps.settings] = lambda: settings
    monkeypatch.setattr(slack_router, "_replays", None)
    posted: list[tuple[str, dict]] = []
    monkeypatch.setattr(
        slack_events, "post_in_thread", lambda token, ch, ts, msg: posted.append((ts, msg))
    )
    monkeypatch.setattr(
        slack_events, "post_to_response_url", lambda url, msg: posted.append((url, msg))
    )
    forget_replays(engine)
    forget_threads(engine)
    with TestClient(app, raise_server_exceptions=False) as c:
        c.posted = posted
        yield c
    app.dependency_overrides.clear()
    forget_replays(engine)
    forget_threads(engine)


def event(client, text: str, ts: str, thread_ts: str | None = None, **headers: str):
    body = {
        "type": "event_callback",
        "team_id": "T1",
        "event": {"type": "app_mention", "text": f"<@UAPP> {text}", "channel": "C1", "ts": ts}
        | ({"thread_ts": thread_ts} if thread_ts else {}),
    }
    raw = json.dumps(body).encode()
    sent = slack_signed(raw) | {"content-type": "application/json"} | headers
    return client.post("/slack/events", content=raw, headers=sent)


def test_url_verification_answers_the_challenge(slack):
    raw = json.dumps({"type": "url_verification", "challenge": "abc123"}).encode()
    headers = slack_signed(raw) | {"content-type": "application/json"}
    r = slack.post("/slack/events", content=raw, headers=headers)
    assert r.status_code == 200 and r.json() == {"challenge": "abc123"}


def test_unsigned_events_are_refused(slack):
    raw = json.dumps({"type": "url_verification", "challenge": "abc"}).encode()
    r = slack.post("/slack/events", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 401 and r.headers["content-type"] == "application/problem+json"


def test_a_follow_up_in_the_thread_changes_its_question(slack):
    assert event(slack, FIRST, ts="100.1").status_code == 200
    assert event(slack, "and at 50%?", ts="100.2", thread_ts="100.1").status_code == 200
    (ts1, first), (ts2, second) = slack.posted
    assert ts1 == ts2 == "100.1"  # both answered in the thread of the first mention
    assert "at 15% utilization" in first["text"]
    assert "at 50% utilization" in second["text"] and "rtx-3090" in second["text"]
    # a third turn keeps both earlier ones
    event(slack, "in germany?", ts="100.3", thread_ts="100.1")
    third = slack.posted[-1][1]["text"]
    assert "at 50% utilization" in third


def test_a_mention_in_another_thread_starts_over(slack):
    event(slack, FIRST, ts="200.1")
    event(slack, "and at 50%?", ts="300.1")  # not in a thread: a question of its own
    assert "Break-even" not in slack.posted[-1][1]["text"]


def test_slack_retries_are_not_answered_twice(slack):
    event(slack, FIRST, ts="400.1", **{"x-slack-retry-num": "1"})
    assert slack.posted == []


def test_a_question_asked_back_shows_buttons_and_a_click_answers_it(slack):
    body = slack_form("break-even at 20% util")
    msg = slack.post("/slack/commands", content=body, headers=slack_signed(body)).json()
    actions = next(b for b in msg["blocks"] if b["type"] == "actions")
    assert len(actions["elements"]) == 3
    value = actions["elements"][0]["value"]
    payload = {
        "type": "block_actions",
        "response_url": "https://hooks.slack.com/actions/T1/1/xyz",
        "actions": [{"action_id": actions["elements"][0]["action_id"], "value": value}],
    }
    form = urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()
    r = slack.post("/slack/interactions", content=form, headers=slack_signed(form))
    assert r.status_code == 200
    url, answer = slack.posted[-1]
    assert url == payload["response_url"] and answer["replace_original"] is True
    chosen = slack_messages.read_choice(value)
    assert chosen is not None and chosen[1] == "break-even at 20% util"
    assert answer["text"].startswith("Break-even") and "at 20% utilization" in answer["text"]


def test_an_interaction_that_is_not_json_is_a_400(slack):
    form = b"payload=not-json"
    r = slack.post("/slack/interactions", content=form, headers=slack_signed(form))
    assert r.status_code == 400 and r.json()["type"].endswith("invalid-slack-payload")
