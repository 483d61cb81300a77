"""Warm a worker: what the first answers of each kind build once per catalog view (the speed
evidence fitted to the catalog's published comparisons, price outliers, spot defaults, the
chat's lexicon and offer counts), built at start-up rather than on a caller's time.

Unwarmed, a fresh worker's first answer of each kind takes several times as long as the next
ones; warmed, the first ones take about as long as the next (figures in docs/operations.md).
"""

from __future__ import annotations

import logging

from app.catalog.view import CatalogView
from app.models.compare import CompareRequest
from app.models.llm import LlmEstimateRequest
from app.query.answer import respond
from app.settings import Settings
from app.usecases.compare import compute_compare
from app.usecases.llm_estimate import compute_llm_estimate

log = logging.getLogger("gpucost")

# A question and a compare that touch what every kind of answer reuses: seed 001's question
# (README), and the compare example of the API's schema.
QUESTION = "break-even for 3090 at 15% util"
COMPARE = {"workload": {"benchmark": "stylegan_xl"}, "runs_per_month": 200, "limit": 5}
LLM = {"model": "llama-3.1-8b", "task": "lora", "tokens": 200_000_000}


def warm_up(view: CatalogView, settings: Settings) -> None:
    """Answer :data:`QUESTION`, :data:`COMPARE` and :data:`LLM` once over ``view`` (answers
    discarded);
    a failure is logged, never raised: a worker that cannot warm still serves."""
    try:
        respond(view, settings, QUESTION)
        compute_compare(view, CompareRequest.model_validate(COMPARE), settings)
        compute_llm_estimate(view, LlmEstimateRequest.model_validate(LLM), settings)
    except Exception:  # noqa: BLE001 - warming is an optimisation, never a reason to stop
        log.exception("warm-up failed; the first answers build what they need")
