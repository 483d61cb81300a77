"""Slack's interactivity and Events API: a choice picked under a question asked back
(``POST /slack/interactions``) and ``@gpucost`` mentions answered in their thread, where a
follow-up mention changes the thread's question (``POST /slack/events``). Thin: verify,
read Slack's envelope, answer with :func:`app.routers.slack.reply_for`, post.

Both are signed like slash commands (the same secret, timestamp window and replay store)
and acknowledged at once with 200 (Slack's 3 s limit); the answer follows: to the button's
``response_url`` (replacing the question asked back), or with ``chat.postMessage`` in the
mention's thread (needs ``GPUCOST_SLACK_BOT_TOKEN``). Slack's retries of an event
(``X-Slack-Retry-Num``) are acknowledged and not answered twice.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, BackgroundTasks, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy.engine import Engine

from app.api import problems as problem_json
from app.api.deps import CurrentViewDep, EngineDep, SettingsDep
from app.catalog.view import CatalogView
from app.integrations import slack
from app.models.common import problems
from app.models.slack import SlackChallenge
from app.routers.slack import RESPONSE_URL_PREFIX, reply_for, verified_body
from app.settings import Settings
from app.store.slack_threads import DbThreadStore

log = logging.getLogger("gpucost.slack")
router = APIRouter(tags=["slack"])
# "<@U123ABC>" (a mention of the app) in an event's text
MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>")


def _bad(request: Request, detail: str) -> Response:
    return problem_json.problem(
        400, "invalid-slack-payload", "Invalid Slack payload", detail, request
    )


def post_to_response_url(url: str, message: dict[str, Any]) -> None:
    """POST ``message`` to a Slack ``response_url`` (Slack's hooks only)."""
    if not url.startswith(RESPONSE_URL_PREFIX):
        log.warning("choice answer dropped: response_url is not a Slack URL")
        return
    import httpx

    try:
        httpx.post(url, json=message, timeout=10)
    except httpx.HTTPError:
        log.exception("posting the chosen answer to response_url failed")


def post_in_thread(token: str, channel: str, thread_ts: str, message: dict[str, Any]) -> None:
    """Post ``message`` in the thread ``thread_ts`` of ``channel`` (``chat.postMessage``)."""
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    try:
        WebClient(token=token, timeout=10).chat_postMessage(
            channel=channel,
            thread_ts=thread_ts,
            text=message.get("text", ""),
            blocks=message.get("blocks"),
        )
    except (SlackApiError, OSError):
        log.exception("chat.postMessage of a thread answer failed")


def _answer_choice(view: CatalogView, settings: Settings, payload: dict[str, Any]) -> None:
    """Answer the choice a button carried and replace the question asked back with it."""
    action = (payload.get("actions") or [{}])[0]
    chosen = slack.read_choice(str(action.get("value", "")))
    if chosen is None:
        return
    message = reply_for(view, settings, chosen[0], chosen[1])
    post_to_response_url(str(payload.get("response_url", "")), message | {"replace_original": True})


@router.post(
    "/slack/interactions",
    summary="Slack interactivity: a choice picked under a question asked back",
    response_model=None,
    response_class=Response,
    responses={
        200: {"description": "Acknowledged (an empty body); the answer replaces the question."},
        **problems(400, 401, 413, 415),
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/x-www-form-urlencoded": {
                    "schema": {
                        "type": "object",
                        "required": ["payload"],
                        "properties": {
                            "payload": {
                                "type": "string",
                                "description": "Slack's interaction payload, JSON.",
                            }
                        },
                    }
                }
            },
        }
    },
)
async def interaction(
    request: Request,
    settings: SettingsDep,
    view: CurrentViewDep,
    engine: EngineDep,
    background: BackgroundTasks,
) -> Response:
    """A button of a question asked back (`choices`) was clicked: Slack posts the form field
    `payload` (JSON, `type` `block_actions`), signed like a slash command (else 401; a
    payload that is not JSON is 400). Acknowledged at once; the chosen question's answer is
    posted to the payload's `response_url`, replacing the question."""
    body = await verified_body(request, settings, engine)
    if isinstance(body, Response):
        return body
    raw = parse_qs(body.decode("utf-8"), keep_blank_values=True).get("payload", [""])[0]
    try:
        payload = json.loads(raw)
    except ValueError:
        return _bad(request, "the form field `payload` is not JSON")
    if not isinstance(payload, dict):
        return _bad(request, "the form field `payload` is not a JSON object")
    if payload.get("type") == "block_actions":
        background.add_task(_answer_choice, view, settings, payload)
    return Response(status_code=200)


def _answer_mention(
    view: CatalogView, settings: Settings, engine: Engine, team: str, event: dict[str, Any]
) -> None:
    """Answer a mention in its thread: a mention inside a thread the app answered before is
    a follow-up of that thread's question."""
    token = settings.slack_bot_token
    channel, ts = str(event.get("channel", "")), str(event.get("ts", ""))
    thread_ts = str(event.get("thread_ts") or ts)
    text = " ".join(MENTION.sub(" ", str(event.get("text", ""))).split())
    if not (channel and thread_ts and text):
        return
    store = DbThreadStore(engine)
    key = f"{team}:{channel}:{thread_ts}"
    previous = store.turns(key) if event.get("thread_ts") else None
    message = reply_for(view, settings, text, previous)
    store.add(key, text)
    if token is None or not token.get_secret_value().strip():
        log.warning("a mention was not answered: GPUCOST_SLACK_BOT_TOKEN is not set")
        return
    post_in_thread(token.get_secret_value(), channel, thread_ts, message)


@router.post(
    "/slack/events",
    summary="Slack Events API: `@gpucost` mentions, answered in their thread",
    response_model=None,
    response_class=Response,
    responses={
        200: {
            "description": "Acknowledged (an empty body), or the URL check's `challenge`.",
            "model": SlackChallenge,
        },
        **problems(400, 401, 413, 415),
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/SlackEventEnvelope"}}
            },
        }
    },
)
async def events(
    request: Request,
    settings: SettingsDep,
    view: CurrentViewDep,
    engine: EngineDep,
    background: BackgroundTasks,
) -> Response:
    """Slack's Events API, signed like a slash command (else 401; a body that is not a JSON
    object is 400). `url_verification` answers its `challenge`. An `app_mention` event is
    answered in its thread (`chat.postMessage`, with `GPUCOST_SLACK_BOT_TOKEN`); a mention
    inside a thread the app answered is a follow-up that changes the thread's question
    ("@gpucost and at 50%?"). Other events and Slack's retries are acknowledged only."""
    body = await verified_body(request, settings, engine)
    if isinstance(body, Response):
        return body
    try:
        envelope = json.loads(body)
    except ValueError:
        return _bad(request, "the body is not JSON")
    if not isinstance(envelope, dict):
        return _bad(request, "the body is not a JSON object")
    if envelope.get("type") == "url_verification":
        return JSONResponse({"challenge": str(envelope.get("challenge", ""))})
    event = envelope.get("event")
    retry = request.headers.get("x-slack-retry-num")
    if isinstance(event, dict) and event.get("type") == "app_mention" and retry is None:
        team = str(envelope.get("team_id", ""))
        background.add_task(_answer_mention, view, settings, engine, team, event)
    return Response(status_code=200)
