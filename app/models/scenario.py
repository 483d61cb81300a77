"""Saved scenarios: a named request (break-even or run-cost through the API; any calculator's
from the web pages), stored as given and re-evaluated on demand with the prices of any day."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from app.models.break_even import BreakEvenRequest, BreakEvenResult
from app.models.carbon import CarbonResult
from app.models.common import OMITTED
from app.models.compare_result import CompareResult
from app.models.inputs import NO_CONTROL, STRICT, exactly_one
from app.models.llm import LlmEstimateResult
from app.models.plan import PlanResult
from app.models.run_cost import RunCostRequest, RunCostResult

# What a scenario's request is for: the API saves break-even and run-cost requests; the web
# calculator's pages save any of their answers (`POST /s`).
ScenarioKind = Literal["break_even", "run_cost", "compare", "plan", "carbon", "llm_estimate"]


@dataclass(frozen=True)
class Owner:
    """Who saves, lists and deletes scenarios: an API key (``key_id``, scope `scenarios`), a
    user signed in through the institution's proxy (``user``, with the ``labs`` their
    identity-provider groups map to), or a browser that saved an answer from a calculator
    page without either (``browser``: its cookie token's digest)."""

    key_id: str | None = None
    user: str | None = None
    labs: tuple[str, ...] = ()
    browser: str | None = None  # SHA-256 (hex) of a calculator page's browser cookie token

    def describe(self) -> str:
        """``this API key``, ``user <name>`` or ``this browser``, for messages."""
        if self.user is not None:
            return f"user {self.user}"
        return "this browser" if self.browser is not None else "this API key"


class ScenarioCreate(BaseModel):
    """A scenario to save: a name and exactly one of `break_even` (a `POST /v1/break-even`
    body) or `run_cost` (a `POST /v1/run-cost` body). It is evaluated once when saved, so a
    request that cannot be answered is refused (404/422) and nothing is stored."""

    model_config = {**STRICT, "json_schema_extra": exactly_one("break_even", "run_cost")}

    name: str = Field(min_length=1, max_length=200, pattern=NO_CONTROL, description="Name.")
    # Typed without `| None` (as in RunOption): either may be omitted, neither sent as null.
    break_even: BreakEvenRequest = Field(default=OMITTED, description="Break-even request.")
    run_cost: RunCostRequest = Field(default=OMITTED, description="Run-cost request.")

    @model_validator(mode="after")
    def _one(self) -> ScenarioCreate:
        if (self.break_even is None) == (self.run_cost is None):
            raise ValueError("give exactly one of break_even or run_cost")
        return self


class ScenarioPublic(BaseModel):
    """A saved scenario."""

    id: str = Field(description="Scenario id (32 hex digits).")
    name: str = Field(description="Name given by its creator.")
    kind: ScenarioKind = Field(description="Which calculation the request is for.")
    request: dict[str, Any] = Field(
        description="The request as given (fields left out take the defaults in force when "
        "the scenario is evaluated)."
    )
    created_at: dt.datetime = Field(description="When it was saved (UTC).")
    lab: str | None = Field(
        default=None,
        description="The lab it is shared with: its members (signed in through the "
        "institution's proxy) list it; null: its owner's alone.",
    )
    saved_by: str | None = Field(
        default=None,
        description="The signed-in user who saved it (single sign-on); null when an API key "
        "saved it (keys are not named to others).",
    )


class ScenariosPublic(BaseModel):
    """A page of the caller's own scenarios, newest first."""

    data: list[ScenarioPublic] = Field(description="This page's scenarios.")
    count: int = Field(
        description="Scenarios the caller may list (before pagination): a key's own, or a "
        "signed-in user's own and their labs'."
    )


class ScenarioResult(BaseModel):
    """A scenario evaluated with the prices of `as_of` (today when not given)."""

    scenario: ScenarioPublic
    as_of: dt.date | None = Field(description="The `as_of` asked for; null = current prices.")
    break_even: BreakEvenResult | None = Field(description="For a break-even scenario.")
    run_cost: RunCostResult | None = Field(description="For a run-cost scenario.")
    compare: CompareResult | None = Field(
        default=None, description="For a compare scenario (saved from the `/compare` page)."
    )
    plan: PlanResult | None = Field(
        default=None, description="For a fleet plan scenario (saved from the `/plan` page)."
    )
    carbon: CarbonResult | None = Field(
        default=None, description="For a carbon scenario (saved from the `/carbon` page)."
    )
    llm_estimate: LlmEstimateResult | None = Field(
        default=None, description="For an LLM job scenario (saved from the `/llm` page)."
    )
