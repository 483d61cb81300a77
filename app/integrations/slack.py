"""Slack slash commands: request verification and Block Kit replies (no FastAPI imports).

Verification (https://docs.slack.dev/authentication/verifying-requests-from-slack/):
``X-Slack-Signature`` must equal ``v0=HMAC-SHA256(signing_secret, "v0:{ts}:{raw body}")``,
checked by slack-sdk's :class:`SignatureVerifier` in constant time; the timestamp must be an
integer no more than ``max_age_s`` seconds from now; and a signature already seen within that
window, by any worker (``replays``, a shared store), is a replay. Junk headers (non-numeric
timestamp, non-UTF-8 body) are refusals, never exceptions.

Replies follow Slack's message format: ``response_type`` ``ephemeral`` (default) or
``in_channel``, a plain-text ``text`` fallback, and Block Kit ``blocks`` (at most 50; section
text at most 3,000 characters; at most 10 fields of 2,000).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlencode

from slack_sdk.signature import SignatureVerifier

from app.models.query import QueryAnswer
from app.render.charts import has_chart

MAX_SECTION_CHARS = 3000
MAX_FIELDS = 10
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
    """A slash-command reply: the headline first, then key inputs, the chart (when
    ``base_url``, the service's public address, is known), defaults and sources."""
    fields = [
        {"type": "mrkdwn", "text": _cut(f"*{escape(f.label)}*\n{escape(f.value)}", MAX_FIELD_CHARS)}
        for f in ans.facts[:MAX_FIELDS]
    ]
    blocks: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": f"*{escape(ans.headline)}*"}}
    ]
    if fields:
        blocks.append({"type": "section", "fields": fields})
    image = chart_url(base_url, ans) if base_url else None
    if image:
        blocks.append({"type": "image", "image_url": image, "alt_text": _cut(ans.headline, 2000)})
    assumed = [f"{d.name} = {d.value} ({d.source})" for d in ans.defaults]
    result = ans.result if isinstance(ans.result, dict) else {}
    assumed += [
        f"{a['name']} = {a['value']} ({a['source']})" for a in result.get("assumptions", [])
    ]
    if assumed:
        text = "*Assumed:* " + "; ".join(escape(a) for a in assumed)
        blocks.append(
            {"type": "context", "elements": [{"type": "mrkdwn", "text": _cut(text, 2900)}]}
        )
    sources = [f"{s['what']} ({s['as_of']})" for s in result.get("sources", [])]
    if sources:
        text = "*Sources:* " + "; ".join(escape(s) for s in sources)
        blocks.append(
            {"type": "context", "elements": [{"type": "mrkdwn", "text": _cut(text, 2900)}]}
        )
    footer = f"`/gpucost {escape(ans.query)}`"
    if ans.ignored:
        footer += " · ignored: " + escape(", ".join(ans.ignored))
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": _cut(footer, 2900)}]})
    fallback = "\n".join([ans.headline, *(f"{f.label}: {f.value}" for f in ans.facts)])
    return {
        "response_type": "in_channel" if ans.share else "ephemeral",
        "text": _cut(fallback, MAX_SECTION_CHARS),
        "blocks": blocks,
    }


def help_message(
    detail: str,
    suggestions: list[str] | None = None,
    examples: list[str] | None = None,
) -> dict[str, Any]:
    """A short ephemeral reply for a question that could not be answered."""
    lines = [escape(detail)]
    if suggestions:
        lines.append("Did you mean: " + ", ".join(f"`{escape(s)}`" for s in suggestions) + "?")
    if examples:
        lines.append("Try: " + " · ".join(f"`/gpucost {escape(e)}`" for e in examples))
    text = "\n".join(lines)
    return {
        "response_type": "ephemeral",
        "text": _cut(text, MAX_SECTION_CHARS),
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": _cut(text, MAX_SECTION_CHARS)}}
        ],
    }


WORKING = {
    "response_type": "ephemeral",
    "text": "Working on it; the answer will follow in a moment.",
}
