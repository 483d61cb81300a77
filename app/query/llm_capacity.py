"""What an LLM job's GPUs can take, answered from the estimate (``POST /v1/llm/estimate``):
its speed ("tokens per second") and its room ("longest context", "largest batch", "how many
concurrent users"). :mod:`app.query.llm_words` reads the question and computes the estimate;
these functions only word its figures."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from app.models.query import QueryAnswer
from app.query.answer_common import Answer, money

if TYPE_CHECKING:
    from app.models.llm import LlmEstimateResult

# "longest context", "max context length", "how long a context", "largest context window".
_CONTEXT = re.compile(
    r"\b(?:longest|max(?:imum)?|largest|biggest|how\s+(?:long|big)(?:\s+an?)?)\s+"
    r"context(?:\s+(?:length|window|size))?\b",
    re.I,
)
# "largest batch", "max batch size", "how many concurrent users/requests/sequences".
_BATCH = re.compile(
    r"\b(?:largest|max(?:imum)?|biggest)\s+batch(?:\s+size)?\b|\bhow\s+many\s+"
    r"(?:concurrent\s+|parallel\s+|simultaneous\s+)?(?:users|requests|sequences|streams)\b"
    r"(?:\s+at\s+once)?|\bmax(?:imum)?\s+concurrency\b",
    re.I,
)


# The serving or training engine a question names ("with vllm", "on ollama"): its request value.
ENGINES = (
    (re.compile(r"\bv-?llm\b", re.I), "vllm"),
    (re.compile(r"\bllama[.\s-]?cpp\b|\bollama\b", re.I), "llama.cpp"),  # Ollama runs llama.cpp
    (re.compile(r"\b(?:tensorrt|trt)[\s-]?llm\b", re.I), "tensorrt-llm"),
    (re.compile(r"\bnemo\b", re.I), "nemo"),
    (re.compile(r"\b(?:hugging\s?face\s+)?transformers\b", re.I), "transformers"),
)


def estimate_done(
    out: Answer, headline: str, body: dict[str, Any], result: LlmEstimateResult
) -> QueryAnswer:
    """The answer with ``headline``, naming ``POST /v1/llm/estimate`` with ``body`` and its
    first five rows."""
    return out.done(
        headline,
        endpoint="/v1/llm/estimate",
        request=body,
        result=result.model_dump(mode="json")["estimates"][:5],
    )


def room_asked(text: str) -> tuple[str, str] | None:
    """``("context" | "batch", the words)`` when ``text`` asks how much the GPUs hold."""
    for kind, rx in (("context", _CONTEXT), ("batch", _BATCH)):
        if m := rx.search(text):
            return kind, m.group(0)
    return None


def _headline(kind: str, what: str, e: Any, result: Any) -> str:
    asked = int(result.model.get("gpu_count") or 1)
    count = e.gpus_priced or asked
    weights_gb = e.memory_breakdown.weights_gb * asked / count  # the breakdown is on `asked`
    if not e.fits:
        what = f"{what} does not fit {asked}x {e.gpu_id} (needs {e.gpus_needed});"
    limit = result.model.get("model_context_length")
    share = result.model.get("gpu_memory_utilization")
    engine = (
        f"on a server taking {share:.0%} of each GPU, as vLLM does by default"
        if share is not None  # echoed only for an engine that takes a share of the card
        else f"in {result.model.get('engine')}, sized as the assumptions say"
    ) + f", beside {weights_gb:.1f} GB of weights per GPU"
    if kind == "context":
        batch = int(result.model.get("batch_size") or 1)
        seqs = "one sequence" if batch == 1 else f"{batch} sequences at once"
        capped = " (the model's own limit)" if limit and e.max_context_tokens >= limit else ""
        return (
            f"{what} on {count}x {e.gpu_id}: the longest context is about "
            f"{e.max_context_tokens:,} tokens{capped} for {seqs} (the KV cache's room "
            f"{engine})"
        )
    seq = int(result.model.get("context_length") or 0)
    of = f" of {seq:,} tokens (prompt + output)" if seq else ""
    return (
        f"{what} on {count}x {e.gpu_id}: about {e.max_batch_size:,} sequences{of} at once "
        f"(the KV cache's room {engine})"
    )


def room_answer(
    out: Answer, kind: str, body: dict[str, Any], result: LlmEstimateResult, what: str
) -> QueryAnswer:
    """The longest context or the largest batch the GPUs named (else the cheapest that hold
    the weights) leave room for, from the estimate's ``max_context_tokens`` and
    ``max_batch_size``."""
    rows = [e for e in result.estimates if e.max_batch_size is not None]
    fit = [e for e in rows if e.fits] or rows
    if not fit or (kind == "context" and not fit[0].max_context_tokens):
        return out.done(f"{what}: no catalog GPU named holds the weights", answered=False)
    for e in fit[:5]:
        out.fact(
            e.gpu_id,
            f"{e.gpus_priced}x: context up to {e.max_context_tokens:,} tokens; "
            f"batch up to {e.max_batch_size:,}",
        )
    return estimate_done(out, _headline(kind, what, fit[0], result), body, result)


def speed_answer(
    out: Answer, body: dict[str, Any], result: LlmEstimateResult, what: str
) -> QueryAnswer:
    """Tokens per second of the job on the GPUs named (else the cheapest that hold it), as
    the estimate gives them, with what bounds them."""
    timed = [e for e in result.estimates if e.tokens_per_s]
    fit = [e for e in timed if e.fits] or timed
    if not fit:
        return out.done(f"{what}: no speed figure for these GPUs", answered=False)
    for e in fit[:5]:
        holds = "fits" if e.fits else f"needs {e.gpus_needed}"
        bound = f", {e.bound}-bound" if e.bound else ""
        out.fact(e.gpu_id, f"{e.tokens_per_s:,.0f} tokens/s ({holds}{bound})")
    best = fit[0]
    count = body.get("gpu_count", best.gpus_priced or 1)
    bound = f", {best.bound}-bound" if best.bound else ""
    headline = (
        f"{what} on {count}x {best.gpu_id}: about {best.tokens_per_s:,.0f} tokens/s "
        f"(the estimate{bound}; {best.memory_gb_per_gpu:.1f} GB per GPU)"
    )
    return estimate_done(out, headline, body, result)


def _per_million(x: float | None) -> str:
    return "no price" if x is None else f"{money(x)} per million tokens"


def serving_answer(
    out: Answer, body: dict[str, Any], result: LlmEstimateResult, what: str
) -> QueryAnswer:
    """What serving ``tokens_per_day`` costs per million tokens on the GPUs named (else the
    cheapest that serve it): rented around the clock, rented for the busy hours only, and
    owned, with the concurrency, throughput and latency it rests on."""
    rows = [e for e in result.estimates if e.serving is not None]
    if not rows:
        return out.done(f"{what}: no catalog GPU named serves it", answered=False)
    for e in rows[:5]:
        sv = e.serving
        assert sv is not None
        out.fact(
            e.gpu_id,
            f"{sv.concurrency} at once, {sv.tokens_per_s:,.0f} tokens/s; "
            f"{_per_million(sv.rented_cost_usd_per_million_tokens)} around the clock, "
            f"{_per_million(sv.busy_hours_cost_usd_per_million_tokens)} busy hours only",
        )
    e = rows[0]
    sv = e.serving
    assert sv is not None
    daily = body["tokens_per_day"]
    owned = (
        f"; owned, {_per_million(sv.owned_cost_usd_per_million_tokens)}"
        if sv.owned_cost_usd_per_million_tokens is not None
        else ""
    )
    hosted = ""
    if result.hosted_apis:
        h = result.hosted_apis[0]
        hosted = (
            f"; hosted APIs from {_per_million(h.cost_usd_per_million_tokens)} "
            f"({h.provider}, prompts included)"
        )
    on = f"{e.gpus_priced}x {e.gpu_id}"
    if sv.replicas > 1:  # more than one replica's day of work
        on = f"{sv.replicas} replicas of {on}"
    headline = (
        f"Serving {what.removeprefix('inference of ')} at {daily:,.0f} tokens a day on "
        f"{on}: {_per_million(sv.rented_cost_usd_per_million_tokens)} "
        f"rented around the clock, {_per_million(sv.busy_hours_cost_usd_per_million_tokens)} "
        f"if billed only for the {sv.busy_hours_per_day:.1f} busy hours a day"
        f"{' over the replicas' if sv.replicas > 1 else ''} "
        f"({sv.utilization:.0%} utilization){owned}{hosted}. {sv.concurrency} sequences at once"
        f"{' per replica' if sv.replicas > 1 else ''}: "
        f"{sv.tokens_per_s:,.0f} tokens/s, first token in {sv.time_to_first_token_s:.2f} s, "
        f"{sv.inter_token_latency_s * 1000:.0f} ms between tokens"
    )
    return estimate_done(out, headline, body, result)
