"""Requests and signed Slack commands the tests build, written once.

Every figure here is a seed's (``../shared/reference/seed-facts.md``), never one of our
answers: seed 001 (Dettmers, 2020) is a $2,200 RTX 3090 desktop (350 W GPU + 100 W base) at
15 % utilization and $0.12/kWh against a $2.14/h V100 spot instance.

* :func:`break_even`: seed 001's ``POST /v1/break-even`` body, with overrides;
* :func:`scenario`: a ``POST /v1/scenarios`` body saving it;
* :func:`slack_form`, :func:`slack_signed`, :func:`forget_replays`: Slack slash commands
  signed as Slack signs them, and emptying the shared replay store between tests.
"""

from __future__ import annotations

import copy
import time
import urllib.parse
from typing import Any

from slack_sdk.signature import SignatureVerifier
from sqlalchemy import Engine, delete
from sqlmodel import Session

from app.models import SlackReplay

SEED_DESKTOP: dict[str, Any] = {"gpu": "rtx-3090", "total_price_usd": 2200}
SEED_CLOUD: dict[str, Any] = {"price_usd_per_hour": 2.14}
SEED_OFFER_ID = "aws-p3.2xlarge-spot-seed-2020"  # the catalog's row of the seed's offer
SEED_BREAK_EVEN: dict[str, Any] = {
    "desktop": SEED_DESKTOP,
    "cloud": SEED_CLOUD,
    "utilization": 0.15,
    "electricity_price_usd_per_kwh": 0.12,
}


def merged(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of ``base`` with ``overrides``: dicts merge, None removes a field."""
    out = copy.deepcopy(base)
    for key, value in overrides.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


def break_even(**overrides: Any) -> dict[str, Any]:
    """Seed 001's break-even body. An override replaces a field, a dict override is merged
    into ``desktop`` or ``cloud`` (``cloud={"gpu": "v100-16gb"}``), None removes a field
    (``electricity_price_usd_per_kwh=None`` leaves the price to the defaults)."""
    return merged(SEED_BREAK_EVEN, overrides)


def scenario(name: str = "seed 001", **overrides: Any) -> dict[str, Any]:
    """A ``POST /v1/scenarios`` body that saves :func:`break_even` (with ``overrides``)."""
    return {"name": name, "break_even": break_even(**overrides)}


SLACK_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"  # Slack's documentation example format


def slack_form(text: str, **extra: str) -> bytes:
    """A slash command's form body, as Slack posts it."""
    fields = {
        "command": "/gpucost",
        "text": text,
        "user_id": "U1",
        "team_id": "T1",
        "channel_id": "C1",
        "response_url": "https://hooks.slack.com/commands/T1/1/abc",
        **extra,
    }
    return urllib.parse.urlencode(fields).encode()


def slack_signed(
    body: bytes, *, secret: str = SLACK_SECRET, ts: int | None = None
) -> dict[str, str]:
    """The headers Slack sends with ``body``: timestamp and v0 signature (slack-sdk's own
    signer)."""
    stamp = str(int(time.time()) if ts is None else ts)
    sig = SignatureVerifier(secret).generate_signature(timestamp=stamp, body=body)
    return {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": stamp,
        "x-slack-signature": sig,
    }


def forget_replays(engine: Engine) -> None:
    """Empty the shared replay store (it outlives a test's transaction, like any write
    through the engine), so each test starts with no signature seen."""
    with Session(engine) as s:
        s.exec(delete(SlackReplay))
        s.commit()
