"""Language-model questions in plain words ("can I fine-tune a 13b model on a 24gb card",
"which gpus fit llama 3 70b in 4-bit", "cost of qlora on mistral 7b for 100M tokens"): read the
model (a catalog name, or a size like ``13b``), the task, the precision, the token count and
the GPUs, and answer with ``POST /v1/llm/estimate``'s numbers. A small module of its own, so
the general parser stays untouched; :func:`read_llm` returns None when the question is not
about a language model."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from app.catalog.resolve import normalize
from app.catalog.view import CatalogView
from app.models.llm import LlmEstimateRequest
from app.models.query import QueryAnswer
from app.query.answer_common import Answer, money
from app.settings import Settings
from app.usecases.llm_estimate import compute_llm_estimate

_SIZE = re.compile(r"\b(\d+(?:\.\d+)?)\s?b\b", re.I)
_TOKENS = re.compile(r"\b(\d+(?:\.\d+)?)\s?(k|m|b|t|thousand|million|billion|trillion)?\s+tokens\b", re.I)  # fmt: skip
_MEMORY = re.compile(r"\b(\d+)\s?gb\b", re.I)
# A stated duration ("for 12 hours") makes it a run-cost question for the general parser.
_DURATION = re.compile(r"\b\d+(?:\.\d+)?\s?(h|hours?|days?|minutes?)\b", re.I)
_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "b": 1e9, "billion": 1e9,
          "t": 1e12, "trillion": 1e12}  # fmt: skip
_TASKS = (
    (re.compile(r"\bq-?lora\b", re.I), "qlora"),
    (re.compile(r"\blora\b", re.I), "lora"),
    (re.compile(r"\bpre-?train|\btrain(ing)? from scratch", re.I), "pretrain"),
    (re.compile(r"\bfine-?\s?tun|\bfinetun|\btrain", re.I), "full_finetune"),
    (re.compile(r"\bserv|\binferen|\bgenerat|\brun\b|\bhost", re.I), "inference"),
)
_PRECISIONS = (
    (re.compile(r"\b(4-?\s?bit|int4|q4|nf4)\b", re.I), "int4"),
    (re.compile(r"\b(8-?\s?bit|int8|q8)\b", re.I), "int8"),
    (re.compile(r"\bfp8\b", re.I), "fp8"),
    (re.compile(r"\bbf16\b", re.I), "bf16"),
    (re.compile(r"\b(fp16|16-?\s?bit|half precision)\b", re.I), "fp16"),
    (re.compile(r"\b(fp32|32-?\s?bit|full precision)\b", re.I), "fp32"),
)
_FAMILIES = ("llama", "mistral", "mixtral", "qwen", "gemma", "phi", "deepseek")
DEFAULT_TOKENS = 1e6


@dataclass
class LlmQuestion:
    """What :func:`read_llm` understood: the request and the defaults it chose."""

    request: dict[str, Any]
    defaults: list[tuple[str, Any, str]] = field(default_factory=list)
    min_memory_gb: float | None = None


def _model(view: CatalogView, text: str) -> tuple[str | None, str | None]:
    """(catalog id, why) of the model the text names: the longest catalog name or alias in
    it, else a size (``13b``) matched to a model of that size, a named family first."""
    flat = normalize(text)
    best: tuple[int, str] | None = None
    for m in view.llm_models.values():
        for name in (m.id, m.name, *m.aliases):
            key = normalize(name)
            if len(key) > 3 and key in flat and (best is None or len(key) > best[0]):
                best = (len(key), m.id)
    if best:
        return best[1], None
    size = _SIZE.search(text)
    if not size:
        return None, None
    want = float(size.group(1)) * 1e9
    family = next((f for f in _FAMILIES if f in text.lower()), "llama")
    pool = [m for m in view.llm_models.values() if m.family.startswith(family)] or list(
        view.llm_models.values()
    )
    m = min(pool, key=lambda m: (abs(m.params / want - 1), -m.as_of.toordinal()))
    if abs(m.params / want - 1) > 0.25:
        return None, None
    why = f"'{size.group(0)}' read as the catalog's newest {family} model of that size"
    return m.id, why


def read_llm(view: CatalogView, text: str) -> LlmQuestion | None:
    """The LLM job a question asks about, or None when it names no model or model size."""
    if _DURATION.search(text):
        return None
    model, why = _model(view, text)
    if model is None:
        return None
    q = LlmQuestion({"model": model})
    if why:
        q.defaults.append(("model", model, why + " (gpucost's rule)"))
    task = next((t for rx, t in _TASKS if rx.search(text)), None)
    if task is None:
        task = "inference"
        q.defaults.append(("task", task, "no task word (fine-tune, lora, qlora, serve): serving"))
    q.request["task"] = task
    precision = next((p for rx, p in _PRECISIONS if rx.search(text)), None)
    if precision:
        q.request["precision"] = precision
    tokens = _TOKENS.search(text)
    if tokens:
        q.request["tokens"] = float(tokens.group(1)) * _SCALE.get(
            (tokens.group(2) or "").lower(), 1
        )
    else:
        q.request["tokens"] = DEFAULT_TOKENS
        q.defaults.append(
            ("tokens", DEFAULT_TOKENS, "no token count: one million (gpucost's rule)")
        )
    memory = _MEMORY.search(text)
    if memory:
        q.min_memory_gb = float(memory.group(1))
    return q


def llm_answer(view: CatalogView, settings: Settings, out: Answer, q: LlmQuestion) -> QueryAnswer:
    """Answer ``q`` with the estimate: the cheapest GPUs that hold the job, or the GPUs of the
    memory the question names."""
    out.it.intent = "llm_estimate"
    body = dict(q.request)
    named = out.it.gpu or out.it.cloud.gpu
    if named is not None:
        body["gpus"] = list(named.ids)
    elif q.min_memory_gb is not None:
        gpus = [g.id for g in view.gpus if round(g.memory_gb) == q.min_memory_gb]
        if gpus:
            body["gpus"] = gpus
    result = compute_llm_estimate(view, LlmEstimateRequest.model_validate(body), settings)
    for name, value, source in q.defaults:
        out.default(name, value, source)
    for a in result.assumptions:
        out.default(a.name, a.value, a.source)
    m = result.model
    rows = result.estimates
    fit = [e for e in rows if e.fits]
    what = f"{m['task'].replace('_', ' ')} of {m.get('name', m['model'])} ({m['precision']})"
    need = rows[0].memory_gb_per_gpu if rows else 0.0
    out.fact("Memory per GPU", f"{need:.1f} GB")
    for e in (fit or rows)[:5]:
        time = f"{e.runtime_s / 3600:.1f} h" if e.runtime_s else "no time"
        cost = f", {money(e.cost_usd)}" if e.cost_usd is not None else ""
        holds = "fits" if e.fits else f"needs {e.gpus_needed}"
        out.fact(e.gpu_id, f"{holds}, {time}{cost}")
    if q.min_memory_gb is not None:
        ok = bool(fit)
        headline = (
            f"{what} {'fits' if ok else 'does not fit'} on one {q.min_memory_gb:g} GB card: "
            f"{need:.1f} GB per GPU"
        )
    elif fit:
        best = fit[0]
        cost = f" for {money(best.cost_usd)}" if best.cost_usd is not None else ""
        headline = (
            f"{what}: {len(fit)} GPUs hold it ({need:.1f} GB); cheapest {best.gpu_id}, "
            f"{(best.runtime_s or 0) / 3600:.1f} h{cost}"
        )
    else:
        headline = f"{what} needs {need:.1f} GB: no single catalog GPU holds it"
    return out.done(
        headline,
        endpoint="/v1/llm/estimate",
        request=body,
        result=result.model_dump(mode="json")["estimates"][:5],
    )
