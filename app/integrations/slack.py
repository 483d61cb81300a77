"""Slack slash commands: request verification and Block Kit replies (no FastAPI imports).

Verification (https://docs.slack.dev/authentication/verifying-requests-from-slack/):
``X-Slack-Signature`` must equal ``v0=HMAC-SHA256(signing_secret, "v0:{ts}:{raw body}")``,
checked by slack-sdk's :class:`SignatureVerifier` in constant time; the timestamp must be an
integer no more than ``max_age_s`` seconds from now; and a signature already seen within that
window, by any worker (``replays``, a shared store), is a replay. Junk headers (non-numeric
timestamp, non-UTF-8 body) are refusals, never exceptions.

Replies are written to be read: the headline, at most six facts, a button to the
full answer (``GET /v1/query``, every assumption and source) and at most ~600 characters of
context (prices over a year old, assumptions by name and value, the question). Replies follow
Slack's message format: ``response_type`` ``ephemeral`` (default) or
``in_channel``, a plain-text ``text`` fallback, and Block Kit ``blocks`` (at most 50; section
text at most 3,000 characters; at most 10 fields of 2,000).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlencode

from slack_sdk.signature import SignatureVerifier

from app.catalog.view import today as utc_today
from app.costing.defaults import PRICE_FRESH_DAYS
from app.models.query import Choice, Fact, QueryAnswer
from app.render.charts import has_chart

MAX_SECTION_CHARS = 3000
MAX_FACTS = 6  # facts a reply shows (the full answer has them all)
MAX_CONTEXT_CHARS = 600  # context under the facts: old prices, assumptions, the question
MAX_FIELD_CHARS = 2000


@dataclass(frozen=True)
class Verdict:
    """Outcome of :func:`verify`: ``ok``, or why not."""

    ok: bool
    reason: str = ""


class ReplayStore(Protocol):
    """Where signatures already answered are remembered (the database's table in
    :mod:`app.store.slack_replays`, shared by every worker)."""

    def first_time(self, signature: str) -> bool:
        """True the first time ``signature`` is offered within the window, False after."""
        ...


def verify(
    secret: str,
    body: bytes,
    timestamp: str | None,
    signature: str | None,
    *,
    max_age_s: int,
    replays: ReplayStore,
    now: float | None = None,
) -> Verdict:
    """Check a Slack request's signature, age and novelty."""
    if not timestamp or not signature:
        return Verdict(False, "missing X-Slack-Request-Timestamp or X-Slack-Signature")
    if not timestamp.isascii() or not timestamp.isdigit() or len(timestamp) > 12:
        return Verdict(False, "X-Slack-Request-Timestamp is not a Unix time")
    current = time.time() if now is None else now
    if abs(current - int(timestamp)) > max_age_s:
        return Verdict(False, f"request timestamp is more than {max_age_s} s from now")
    try:
        body.decode("utf-8")
        valid = SignatureVerifier(secret).is_valid(body, timestamp, signature)
    except (ValueError, UnicodeDecodeError):
        valid = False
    if not valid:
        return Verdict(False, "X-Slack-Signature does not match the body")
    if not replays.first_time(signature):
        return Verdict(False, "this request was already answered (replay)")
    return Verdict(True)


# ------------------------------------------------------------------------------------------
# Replies
# ------------------------------------------------------------------------------------------


def escape(text: str) -> str:
    """Escape Slack's control characters (&, <, >): user text can never become a mention or
    a link."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def chart_url(base_url: str, ans: QueryAnswer) -> str | None:
    """The PNG chart of an answer under the service's public ``base_url``, or None when its
    kind of question has no chart."""
    if not ans.answered or not has_chart(ans.endpoint):
        return None
    return f"{base_url.rstrip('/')}/v1/charts/query?{urlencode({'q': ans.query})}"


def answer_message(ans: QueryAnswer, base_url: str | None = None) -> dict[str, Any]:
    """A slash-command reply people read: the headline, 3 to :data:`MAX_FACTS` facts (the
    speed basis kept when hours were scaled by it), the chart and a button to the full
    answer (when ``base_url``, the service's public address, is known), then at most
    :data:`MAX_CONTEXT_CHARS` of context: prices older than a year, what was assumed (names
    and values; sources in the full answer) and the question."""
    shown = key_facts(ans)
    fields = [
        {"type": "mrkdwn", "text": _cut(f"*{escape(f.label)}*\n{escape(f.value)}", MAX_FIELD_CHARS)}
        for f in shown
    ]
    blocks: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": f"*{escape(ans.headline)}*"}}
    ]
    if fields:
        blocks.append({"type": "section", "fields": fields})
    image = chart_url(base_url, ans) if base_url else None
    if image:
        blocks.append({"type": "image", "image_url": image, "alt_text": _cut(ans.headline, 2000)})
    if base_url:
        blocks.append(
            {
                "type": "actions",
                "elements": [
                    {
                        "type": "button",
                        "text": {"type": "plain_text", "text": "Full answer"},
                        "url": full_answer_url(base_url, ans),
                    }
                ],
            }
        )
    budget = MAX_CONTEXT_CHARS
    for line in context_lines(ans):
        if budget <= 1:
            break
        text = _cut(line, budget)
        budget -= len(text)
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": text}]})
    fallback = "\n".join([ans.headline, *(f"{f.label}: {f.value}" for f in shown)])
    return {
        "response_type": "in_channel" if ans.share else "ephemeral",
        "text": _cut(fallback, MAX_SECTION_CHARS),
        "blocks": blocks,
    }


def full_answer_url(base_url: str, ans: QueryAnswer) -> str:
    """The whole answer (every assumption and source) as JSON: ``GET /v1/query``."""
    return f"{base_url.rstrip('/')}/v1/query?{urlencode({'q': ans.query})}"


def key_facts(ans: QueryAnswer) -> list[Fact]:
    """The first :data:`MAX_FACTS` facts, the speed basis (``Speed``) kept among them."""
    shown = list(ans.facts[:MAX_FACTS])
    speed = next((f for f in ans.facts if f.label == "Speed"), None)
    if speed is not None and speed not in shown:
        shown[-1] = speed
    return shown


def context_lines(ans: QueryAnswer) -> list[str]:
    """The context under the facts, most important first (each escaped): prices older than
    a year, the assumptions by name and value, the question and what was ignored."""
    lines = []
    old = old_prices(ans)
    if old:
        lines.append("*Prices over a year old:* " + escape("; ".join(old)))
    assumed = [f"{d.name} = {_short(d.value)}" for d in ans.defaults]
    result = ans.result if isinstance(ans.result, dict) else {}
    more = len(result.get("assumptions", []))
    if assumed or more:
        text = "; ".join(assumed) + (f"; {more} more in the full answer" if more else "")
        lines.append("*Assumed:* " + escape(text.removeprefix("; ")))
    footer = f"`/gpucost {escape(ans.query)}`"
    if ans.ignored:
        footer += " · ignored: " + escape(", ".join(ans.ignored))
    lines.append(footer)
    return lines


def _short(value: Any) -> str:
    """An assumption's value in a few words (a list by its length)."""
    if isinstance(value, list):
        return str(value[0]) if len(value) == 1 else f"{len(value)} (listed in the full answer)"
    return _cut(str(value), 48)


# "offer x: price dated 2024-06-30, 877 days before 2026-11-24 (limit 90 days)"
_DATED = re.compile(r"^(.+?): (?:[\w ]+: )?price dated (\d{4}-\d\d-\d\d), (\d+) days before")


def old_prices(ans: QueryAnswer, today: dt.date | None = None) -> list[str]:
    """What the answer priced from a figure more than :data:`PRICE_FRESH_DAYS` old, with its
    date: the engine's price warnings, or the offers' ``as_of`` dates."""
    result = ans.result
    found: dict[str, str] = {}
    if isinstance(result, dict):
        for w in result.get("warnings") or []:
            if (m := _DATED.match(str(w))) and int(m.group(3)) > PRICE_FRESH_DAYS:
                found.setdefault(m.group(1), m.group(2))
        rows = result.get("rentals") or []
    else:
        rows = result or []
    day = today or utc_today()
    for row in rows:
        if isinstance(row, dict) and row.get("as_of"):
            as_of = dt.date.fromisoformat(str(row["as_of"]))
            name = str(row.get("offer_id") or row.get("id"))
            if (day - as_of).days > PRICE_FRESH_DAYS:
                found.setdefault(name, as_of.isoformat())
    return [f"{what} ({when})" for what, when in found.items()]


CHOICE_ACTION = "gpucost_choice"  # action_id prefix of an asked-back choice's button
MAX_BUTTON_VALUE = 2000  # Slack's limit on a button's value


def choice_buttons(choices: list[Choice]) -> dict[str, Any] | None:
    """An actions block with one button per choice of a question asked back: the button's
    value is the choice as JSON (``q``, ``previous``), read back by ``POST
    /slack/interactions``; a choice too long for a button is left out."""
    buttons = []
    for i, c in enumerate(choices):
        value = json.dumps({"q": c.q, "previous": c.previous})
        if len(value) <= MAX_BUTTON_VALUE:
            buttons.append(
                {
                    "type": "button",
                    "action_id": f"{CHOICE_ACTION}_{i}",
                    "text": {"type": "plain_text", "text": _cut(c.label, 75)},
                    "value": value,
                }
            )
    return {"type": "actions", "elements": buttons} if buttons else None


def read_choice(value: str) -> tuple[str, str | None] | None:
    """A choice button's ``(q, previous)``, or None when the value is not one of ours."""
    try:
        data = json.loads(value)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("q"), str):
        return None
    previous = data.get("previous")
    return data["q"], previous if isinstance(previous, str) else None


def help_message(
    detail: str,
    suggestions: list[str] | None = None,
    examples: list[str] | None = None,
    choices: list[Choice] | None = None,
) -> dict[str, Any]:
    """A short ephemeral reply for a question that could not be answered; a question asked
    back shows its choices as buttons (:func:`choice_buttons`)."""
    lines = [escape(detail)]
    if suggestions:
        lines.append("Did you mean: " + ", ".join(f"`{escape(s)}`" for s in suggestions) + "?")
    if examples:
        lines.append("Try: " + " · ".join(f"`/gpucost {escape(e)}`" for e in examples))
    text = "\n".join(lines)
    blocks: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": _cut(text, MAX_SECTION_CHARS)}}
    ]
    buttons = choice_buttons(choices or [])
    if buttons:
        blocks.insert(1, buttons)
    return {"response_type": "ephemeral", "text": _cut(text, MAX_SECTION_CHARS), "blocks": blocks}


WORKING = {
    "response_type": "ephemeral",
    "text": "Working on it; the answer will follow in a moment.",
}
