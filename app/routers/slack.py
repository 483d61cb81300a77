"""``POST /slack/commands``: Slack's slash-command protocol. Thin: verify, answer, format."""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from sqlalchemy.engine import Engine

from app.api import problems as problem_json
from app.api.deps import CurrentViewDep, EngineDep, SettingsDep
from app.catalog.view import CatalogView
from app.integrations import slack
from app.models.common import problems
from app.models.slack import SlackCommand, SlackEventEnvelope, SlackMessage
from app.query import answer as query
from app.settings import Settings
from app.store.slack_replays import DbReplayStore

log = logging.getLogger("gpucost.slack")
router = APIRouter(tags=["slack"])
_replays: DbReplayStore | None = None
# Delayed answers may only go back to Slack (never to an arbitrary URL from the form).
RESPONSE_URL_PREFIX = "https://hooks.slack.com/"


def openapi_components() -> dict[str, Any]:
    """Schemas this router references but FastAPI does not collect (the form body)."""
    return {
        "SlackCommand": SlackCommand.model_json_schema(),
        "SlackEventEnvelope": SlackEventEnvelope.model_json_schema(),
    }


def _replay_store(settings: Settings, engine: Engine) -> DbReplayStore:
    """The shared replay store (the database's ``slack_replay`` table), kept for twice the
    timestamp window."""
    global _replays
    ttl = 2 * settings.slack_max_age_s
    if _replays is None or _replays.ttl_s != ttl or _replays.engine is not engine:
        _replays = DbReplayStore(engine, ttl_s=ttl)
    return _replays


def reply_for(
    view: CatalogView, settings: Settings, text: str, previous: str | None = None
) -> dict[str, Any]:
    """The Slack message answering ``text`` (a follow-up of ``previous`` when given): an
    answer, or a short help with any choices asked back as buttons (never a trace)."""
    try:
        ans = query.respond(view, settings, text, previous)
    except Exception:  # a bug: logged with an id, the user gets a short note
        request_id = uuid.uuid4().hex
        log.exception("slack command failed, request_id=%s", request_id)
        return slack.help_message(f"Sorry, that failed on our side (request id {request_id}).")
    if not ans.answered:
        return slack.help_message(ans.headline, ans.suggestions, ans.examples, ans.choices)
    base = str(settings.public_base_url) if settings.public_base_url else None
    return slack.answer_message(ans, base)


async def verified_body(request: Request, settings: Settings, engine: Engine) -> bytes | Response:
    """The raw body of a correctly signed, fresh, first-time Slack request (slash command,
    interaction or event), else the 401 problem to answer."""
    secret = settings.slack_signing_secret
    if secret is None or not secret.get_secret_value().strip():
        return problem_json.problem(
            401,
            "invalid-slack-signature",
            "Invalid Slack request",
            "no Slack signing secret is configured, so no request can be verified "
            "(set GPUCOST_SLACK_SIGNING_SECRET)",
            request,
        )
    body = await request.body()
    verdict = await run_in_threadpool(
        slack.verify,
        secret.get_secret_value(),
        body,
        request.headers.get("x-slack-request-timestamp"),
        request.headers.get("x-slack-signature"),
        max_age_s=settings.slack_max_age_s,
        replays=_replay_store(settings, engine),
    )
    if not verdict.ok:
        return problem_json.problem(
            401, "invalid-slack-signature", "Invalid Slack request", verdict.reason, request
        )
    return body


async def _post_later(task: asyncio.Future[dict[str, Any]], response_url: str) -> None:
    message = await task
    if not response_url.startswith(RESPONSE_URL_PREFIX):
        log.warning("slow answer dropped: response_url is not a Slack URL")
        return
    import httpx  # ~0.05 s of start-up, needed only for answers later than the deadline

    async with httpx.AsyncClient(timeout=10) as client:
        try:
            await client.post(response_url, json=message)
        except httpx.HTTPError:
            log.exception("posting the delayed answer to response_url failed")


_background: set[asyncio.Task[None]] = set()


@router.post(
    "/slack/commands",
    summary="Slack slash command `/gpucost`",
    response_model=None,
    responses={
        200: {
            "description": "A Slack message (Block Kit), ephemeral unless the user asks to share.",
            "model": SlackMessage,
        },
        **problems(401, 413, 415),
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/x-www-form-urlencoded": {
                    "schema": {"$ref": "#/components/schemas/SlackCommand"}
                }
            },
        }
    },
)
async def slash_command(
    request: Request, settings: SettingsDep, view: CurrentViewDep, engine: EngineDep
) -> Response:
    """Answer `/gpucost <question>` from Slack. The raw body must be signed with the app's
    signing secret (`X-Slack-Signature`, `X-Slack-Request-Timestamp` within 5 minutes, never
    replayed to any worker: the replay store is a database table), else 401. The reply is a
    Block Kit message: the one-line answer first, then key inputs, assumptions and sources;
    text that cannot be read gets a short ephemeral help with "did you mean" suggestions.
    Answers slower than `slack_deadline_s` are acknowledged at once and posted to
    `response_url`."""
    body = await verified_body(request, settings, engine)
    if isinstance(body, Response):
        return body
    form = parse_qs(body.decode("utf-8"), keep_blank_values=True)
    text = form.get("text", [""])[0]
    response_url = form.get("response_url", [""])[0]
    task = asyncio.ensure_future(asyncio.to_thread(reply_for, view, settings, text))
    done, _ = await asyncio.wait({task}, timeout=settings.slack_deadline_s)
    if done:
        return JSONResponse(task.result())
    later = asyncio.create_task(_post_later(task, response_url))
    _background.add(later)
    later.add_done_callback(_background.discard)
    return JSONResponse(slack.WORKING)
