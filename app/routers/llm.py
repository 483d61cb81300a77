"""Language-model workloads: the model catalog and a job's memory, time and cost on each GPU.
Thin: validate, call, return."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from app.api.deps import SettingsDep, ViewDep, cpu_gate
from app.api.lean import LeanRoute
from app.api.responses import json_answer
from app.models.common import problems
from app.models.llm import LlmEstimateRequest, LlmEstimateResult, LlmModelsPublic
from app.usecases import llm_estimate

router = APIRouter(
    prefix="/v1/llm",
    tags=["llm"],
    responses=problems(400, 404, 413, 415, 422),
    route_class=LeanRoute,
)


@router.get("/models", response_model=LlmModelsPublic, summary="Language models in the catalog")
async def list_llm_models(view: ViewDep) -> Response:
    """Open models with their published parameter totals (active per token for MoE) and
    their config.json shape (layers, hidden size, heads, KV heads, vocab, context), each with
    the repository copy and paper it was read from."""
    return json_answer(llm_estimate.list_models(view))


@router.post(
    "/estimate", response_model=LlmEstimateResult, summary="Memory, time and cost of an LLM job"
)
async def estimate_llm_job(
    req: LlmEstimateRequest, view: ViewDep, settings: SettingsDep
) -> Response:
    """For each GPU: memory per GPU with its breakdown (weights, gradients, Adam states,
    activations under full recomputation, KV cache, framework overhead), whether `gpu_count`
    hold it and how many would, the job's time (training: `6·N·D` or LoRA's `4·N·D` FLOPs
    over dense tensor throughput x MFU; inference: compute-bound prefill and
    bandwidth-bound decode) and its cost on the cheapest on-demand offer and on an owned
    desktop (electricity + amortized purchase). 422 for an unknown model (with candidates),
    a precision the task cannot run in, zero tokens or a sequence beyond the model's context;
    503 with `Retry-After` while the worker's bound on CPU work is full (the estimate runs
    off the event loop, through that bound, and counts against the heavy rate limit)."""
    estimate = llm_estimate.compute_llm_estimate
    return json_answer(await cpu_gate(settings).run(estimate, view, req, settings))
