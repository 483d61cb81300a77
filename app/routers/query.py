"""Plain-language questions: ``GET /v1/query?q=...`` (for chat tools). Thin: parse, answer."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from app.api.deps import CpuGateDep, HeavyDep, SettingsDep, ViewDep
from app.api.responses import json_answer
from app.models.common import PROBLEM_RESPONSES
from app.models.query import QueryAnswer
from app.query import answer as query
from app.query.vocabulary import MAX_QUERY_CHARS
from app.render import apart
from app.usecases.plan_answer import check_plan, compute_plan

# A conversation's earlier turns (the question and follow-ups, one per line), at most.
MAX_PREVIOUS_CHARS = 4 * MAX_QUERY_CHARS

router = APIRouter(
    prefix="/v1",
    tags=["query"],
    responses={422: PROBLEM_RESPONSES[422]},
)


@router.get("/query", response_model=QueryAnswer, summary="Answer a question in plain language")
async def answer_query(
    view: ViewDep,
    settings: SettingsDep,
    cpu: CpuGateDep,
    heavy: HeavyDep,
    q: Annotated[
        str,
        Query(
            min_length=1,
            max_length=MAX_QUERY_CHARS,
            description="The question, e.g. `break-even for 3090 at 15% util vs aws spot v100`.",
            examples=["break-even for 3090 at 15% util"],
        ),
    ],
    previous: Annotated[
        str | None,
        Query(
            max_length=MAX_PREVIOUS_CHARS,
            description="The question before this one in a conversation: `q` is then a "
            "follow-up that changes it (`and at 50%?`, `what about a 4090?`, `in germany?`); "
            "the answer says what changed in its `follows` default. Several turns (the "
            "question, then earlier follow-ups) go one per line.",
            examples=["break-even for 3090 at 15% util"],
        ),
    ] = None,
) -> Response:
    """Read a question (break-even, run cost, cost per batch item, carbon, offers, GPU info,
    help), fill what it leaves out with documented defaults, and answer it with the engine.

    The answer has a one-line `headline`, key `facts`, the parser's `interpretation`, the
    typed `request` sent to `endpoint` (POST it yourself to reproduce the answer), the
    `defaults` applied, the `ignored` words and the engine's `result`. A question that cannot
    be answered (not understood, an unknown or ambiguous GPU, an out-of-range value) is still
    a 200: `answered` is false, `headline` says why, with `suggestions` (did you mean) and
    `examples`. 422 is only for a missing or over-long `q`."""
    # Parsing and answering take 2-20 ms of Python: off the event loop, bounded (503 past it).
    # A fleet plan (0.1-2.5 s of CPU) is computed where plans run (a drawing process, the
    # render gate's bound), not in the chat's one-at-a-time bound.
    answer = await cpu.run(query.prepare, view, settings, q, previous)
    if isinstance(answer, query.PlanPending):
        result = await heavy.run_apart(apart.plan, compute_plan, answer.request, check=check_plan)
        answer = await cpu.run(query.finish_plan, view, answer, result)
    return json_answer(answer)
