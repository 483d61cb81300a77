"""Schemas of the plain-language query answer (``GET /v1/query``, Slack, ``gpucost ask``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.models.answers import Assumption
from app.models.interpretation import Interpretation


class Fact(BaseModel):
    """One key input or output, ready to show (`label: value`)."""

    label: str = Field(description="e.g. `Desktop`.")
    value: str = Field(description="e.g. `1x rtx-3090, $2,200 upfront`.")


class Choice(BaseModel):
    """One answer to a question asked back: ask `GET /v1/query?q={q}&previous={previous}`."""

    label: str = Field(description="What a button shows, e.g. `RTX 4090`.")
    q: str = Field(description="The follow-up that gives this choice, e.g. `a RTX 4090`.")
    previous: str = Field(description="The question it completes (the one asked back).")


class QueryAnswer(BaseModel):
    """A question in plain language, how it was read, and the engine's answer."""

    query: str = Field(description="The question as received (cleaned of control characters).")
    follows: str | None = Field(
        default=None,
        description="The earlier question a follow-up changes (`previous`), when there is one: "
        "the answer is that question with what `query` says changed (the `follows` default "
        "lists the changes).",
    )
    answered: bool = Field(
        description="False when the question could not be answered: `headline` then says why, "
        "with `suggestions` and `examples`."
    )
    intent: str = Field(
        description="`break_even`, `run_cost`, `cost_per_item`, `carbon`, `offers`, "
        "`gpu_info` or `help`."
    )
    headline: str = Field(description="The answer in one line, e.g. `Break-even: 293 days`.")
    facts: list[Fact] = Field(description="Key inputs and outputs behind the headline.")
    interpretation: Interpretation = Field(description="What the parser read, as typed values.")
    endpoint: str | None = Field(
        description="Engine endpoint answering it (`/v1/break-even`, ...); null for help, "
        "offers and GPU info."
    )
    request: dict[str, Any] | None = Field(
        description="The typed request sent to `endpoint`, exactly as it could be POSTed."
    )
    defaults: list[Assumption] = Field(
        description="Defaults applied for parts the question left out, each with its source."
    )
    ignored: list[str] = Field(description="Words of the question that were not used.")
    result: dict[str, Any] | list[Any] | None = Field(
        description="The engine's result (the endpoint's response body), or the offers or GPU."
    )
    share: bool = Field(description="True when the asker wants the answer posted in channel.")
    suggestions: list[str] = Field(
        default_factory=list, description="Did-you-mean catalog ids, when not answered."
    )
    examples: list[str] = Field(
        default_factory=list, description="Questions that work, when not answered."
    )
    choices: list[Choice] = Field(
        default_factory=list,
        description="When the question lacks what the answer turns on (which GPU, how long a "
        "run), two or three one-click answers to the question asked back (`headline`); each "
        "is a follow-up of this question.",
    )
