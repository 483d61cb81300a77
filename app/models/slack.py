"""Schemas of Slack's slash-command protocol (https://docs.slack.dev/interactivity/
implementing-slash-commands/), for the OpenAPI document."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class SlackCommand(BaseModel):
    """The form Slack POSTs (`application/x-www-form-urlencoded`); other fields are ignored."""

    command: str | None = Field(default=None, description="The command, `/gpucost`.")
    text: str = Field(description="What the user typed after the command.")
    user_id: str | None = Field(default=None, description="Slack user id.")
    team_id: str | None = Field(default=None, description="Slack workspace id.")
    channel_id: str | None = Field(default=None, description="Slack channel id.")
    response_url: str | None = Field(
        default=None, description="Where a delayed answer is posted (Slack URLs only)."
    )


class SlackMessage(BaseModel):
    """A Slack message: plain-text fallback plus Block Kit blocks."""

    response_type: Literal["ephemeral", "in_channel"] = Field(
        description="`ephemeral` (only the asker sees it) unless the user asked to share."
    )
    text: str = Field(description="Plain-text fallback: the headline, then key facts.")
    blocks: list[dict[str, Any]] | None = Field(
        default=None, description="Block Kit blocks: headline section, facts, context."
    )


class SlackChallenge(BaseModel):
    """The answer to Slack's `url_verification` event: the challenge it sent, echoed."""

    challenge: str = Field(description="The `challenge` of the verification request.")


class SlackEventEnvelope(BaseModel):
    """What Slack's Events API posts (JSON): a `url_verification` with its `challenge`, or an
    `event_callback` with its `event` (`app_mention`: `text`, `channel`, `ts`, `thread_ts`);
    other fields are ignored."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"type": "url_verification", "challenge": "3eZbrw1aBm2r"}]}
    )

    type: str = Field(description="`url_verification` or `event_callback`.")
    challenge: str | None = Field(default=None, description="To echo (`url_verification`).")
    team_id: str | None = Field(default=None, description="Slack workspace id.")
    event: dict[str, Any] | None = Field(default=None, description="The event (`event_callback`).")
