"""Language-model questions in plain words ("can I fine-tune a 13b model on a 24gb card",
"which gpus fit llama 3 70b in 4-bit", "cost of qlora on mistral 7b for 100M tokens"): read the
model (a catalog name, or a size like ``13b``), the task, the precision, the token count and
the GPUs, and answer with ``POST /v1/llm/estimate``'s numbers. A small module of its own, so
the general parser stays untouched; :func:`read_llm` returns None when the question is not
about a language model."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from app.catalog.resolve import normalize
from app.catalog.view import CatalogView
from app.models.interpretation import Interpretation
from app.models.query import QueryAnswer
from app.query.answer_common import Answer, money, runtime_text
from app.query.llm_capacity import ENGINES as _ENGINES
from app.query.llm_capacity import (
    estimate_done,
    room_answer,
    room_asked,
    serving_answer,
    speed_answer,
)
from app.query.llm_volume import (
    EPOCHS,
    REQUESTS,
    SCALE,
    LlmQuestion,
    epoch_tokens,
    request_rate,
)
from app.query.parser import MODEL_SIZE_PROBLEM
from app.settings import Settings

if TYPE_CHECKING:
    from app.models.llm import LlmEstimateResult

_SIZE = re.compile(r"\b(\d+(?:\.\d+)?)\s?b\b", re.I)
_TOKENS = re.compile(r"\b(\d+(?:\.\d+)?)\s?(k|m|b|t|thousand|million|billion|trillion)?\s+tokens\b", re.I)  # fmt: skip
_MEMORY = re.compile(r"\b(\d+)\s?gb\b", re.I)
# A question about speed: "tokens per second", "tok/s", "t/s", "how fast".
_PER_SECOND = re.compile(
    r"\btok(?:en)?s?\s*(?:per|/|a)\s*s(?:ec(?:ond)?)?\b|\bt/s\b|\bhow\s+fast\b", re.I
)
# A stated duration ("for 12 hours"): the job is what the GPUs do in that time.
_DURATION = re.compile(
    r"\b(\d+(?:\.\d+)?)\s?(h|hrs?|hours?|days?|weeks?|min|minutes?)\b(?!\s*(?:a|per)\s)", re.I
)
_HOURS_PER = {"h": 1.0, "hr": 1.0, "hrs": 1.0, "hour": 1.0, "hours": 1.0, "day": 24.0,
              "days": 24.0, "week": 168.0, "weeks": 168.0, "min": 1 / 60, "minute": 1 / 60,
              "minutes": 1 / 60}  # fmt: skip
# Buy or rent: when the desktop pays for itself against renting, per job.
_BUY = re.compile(
    r"\b(buy|buying|purchase|own(ing)?|pays? (for )?itself|pays? off|break[- ]?even|payback)\b",
    re.I,
)
_TASKS = (
    (re.compile(r"\bq-?lora\b", re.I), "qlora"),
    (re.compile(r"\blora\b", re.I), "lora"),
    (re.compile(r"\bpre-?train|\btrain(ing)? from scratch", re.I), "pretrain"),
    (re.compile(r"\b(?:full\s+)?(?:fine-?\s?tun|finetun)|\btrain", re.I), "full_finetune"),
    (re.compile(r"\bserv|\binferen|\bgenerat|\brun\b|\bhost", re.I), "inference"),
)
_PRECISIONS = (
    (re.compile(r"\bq4_k(?:_m)?\b", re.I), "q4_k_m"),
    (re.compile(r"\bq5_k(?:_m)?\b", re.I), "q5_k_m"),
    (re.compile(r"\bq6_k\b", re.I), "q6_k"),
    (re.compile(r"\bq8_0\b", re.I), "q8_0"),
    (re.compile(r"\bawq\b", re.I), "awq"),
    (re.compile(r"\bgptq\b", re.I), "gptq"),
    (re.compile(r"\b(4-?\s?bit|int4|q4|nf4)\b", re.I), "int4"),
    (re.compile(r"\b(8-?\s?bit|int8|q8)\b", re.I), "int8"),
    (re.compile(r"\bfp8\b", re.I), "fp8"),
    (re.compile(r"\bbf16\b", re.I), "bf16"),
    (re.compile(r"\b(fp16|16-?\s?bit|half precision)\b", re.I), "fp16"),
    (re.compile(r"\b(fp32|32-?\s?bit|full precision)\b", re.I), "fp32"),
)
# "1M tokens a day", "per day", "/day", "daily", "each day": a serving volume.
_PER_DAY = re.compile(r"\s*(?:a|per|each|every|/)\s*day\b|\s*daily\b", re.I)
_FAMILIES = ("llama", "mistral", "mixtral", "qwen", "gemma", "phi", "deepseek")
DEFAULT_TOKENS = 1e6


_NOT_UNDERSTOOD = re.compile(r"'([^']*)' was not understood")


def _whole_words(text: str, m: re.Match[str]) -> str:
    """The words a match falls in ("fine-tun" in "fine-tuning" -> "fine-tuning")."""
    end = m.end()
    while end < len(text) and text[end].isalnum():
        end += 1
    return text[m.start() : end]


def drop_model_words(it: Interpretation, q: LlmQuestion) -> None:
    """Before the general answer takes a question about a language-model job (its carbon
    over a stated time): the words, numbers and model size this reader used are no longer
    ignored, declined or refused."""
    out = Answer(it)
    _drop_read_numbers(out, q)
    _drop_read_words(out, q)
    it.problems = [p for p in it.problems if MODEL_SIZE_PROBLEM not in p]


def _drop_read_words(out: Answer, q: LlmQuestion) -> None:
    """The general parser lists the words of a model name or task ("llama", "lora",
    "fine-tuning") as ignored: this reader used them, so they go."""
    used = {w.lower() for w in re.findall(r"[a-z]+", " ".join(q.read), re.I)}
    out.it.ignored = [w for w in out.it.ignored if w.lower() not in used]


def _drop_read_numbers(out: Answer, q: LlmQuestion) -> None:
    """The general parser declines the numbers in a model name ("llama 3.1 8b") or a precision
    ("4-bit"): this reader used them, so those notes go."""
    used = set(re.findall(r"\d+", " ".join(q.read))) | {w.lower() for w in q.read}
    used |= {t.lower() for w in q.read for t in re.split(r"[\s_]", w)}  # "1m", "q4" of q4_k_m
    out.it.declined = [
        d for d in out.it.declined
        if not ((m := _NOT_UNDERSTOOD.match(d)) and m.group(1) in used)
    ]  # fmt: skip


def _model(view: CatalogView, text: str) -> tuple[str | None, str | None, str]:
    """(catalog id, why, the words read) of the model the text names: the longest catalog
    name or alias in it, else a size (``13b``) matched to a model of that size, a named
    family first."""
    flat = normalize(text)
    best: tuple[int, str, str] | None = None
    for m in view.llm_models.values():
        for name in (m.id, m.name, *m.aliases):
            key = normalize(name)
            if len(key) > 3 and key in flat and (best is None or len(key) > best[0]):
                best = (len(key), m.id, " ".join((m.id, m.name, *m.aliases)))
    if best:
        return best[1], None, best[2]
    size = _SIZE.search(text)
    if not size:
        return None, None, ""
    want = float(size.group(1)) * 1e9
    family = next((f for f in _FAMILIES if f in text.lower()), "llama")
    pool = [m for m in view.llm_models.values() if m.family.startswith(family)] or list(
        view.llm_models.values()
    )
    m = min(pool, key=lambda m: (abs(m.params / want - 1), -m.as_of.toordinal()))
    if abs(m.params / want - 1) > 0.25:
        return None, None, ""
    why = f"'{size.group(0)}' read as the catalog's newest {family} model of that size"
    named = family if family in text.lower() else ""
    return m.id, why, f"{size.group(0)} {named}".strip()


def read_llm(view: CatalogView, text: str) -> LlmQuestion | None:
    """The LLM job a question asks about, or None when it names no model or model size."""
    model, why, words = _model(view, text)
    if model is None:
        return None
    q = LlmQuestion({"model": model}, read=[words])
    if why:
        q.defaults.append(("model", model, why + " (gpucost's rule)"))
    found = next(((m, t) for rx, t in _TASKS if (m := rx.search(text))), None)
    task = found[1] if found else None
    q.read += [_whole_words(text, m) for rx, _t in _TASKS for m in rx.finditer(text)]
    if task is None:
        task = "inference"
        q.defaults.append(("task", task, "no task word (fine-tune, lora, qlora, serve): serving"))
    q.request["task"] = task
    precision = next((m for rx, _p in _PRECISIONS if (m := rx.search(text))), None)
    if precision:
        q.request["precision"] = next(p for rx, p in _PRECISIONS if rx.search(text))
        q.read.append(precision.group(0))
    if engine := next(((m, e) for rx, e in _ENGINES if (m := rx.search(text))), None):
        q.request["engine"] = engine[1]
        q.read.append(engine[0].group(0))
    tokens = _TOKENS.search(text)
    duration = _DURATION.search(text)
    q.read += [m.group(0) for m in (tokens, duration) if m]
    if duration:
        q.hours = float(duration.group(1)) * _HOURS_PER[duration.group(2).lower()]
    q.break_even = bool(_BUY.search(text))
    if room := room_asked(text):
        q.room = room[0]
        q.read.append(room[1])
    if speed := _PER_SECOND.search(text):
        q.per_second = True
        q.read.append(speed.group(0))
    epochs = EPOCHS.search(text)
    if epochs:
        epoch_tokens(q, epochs)
    elif tokens:
        q.tokens_given = True
        said = float(tokens.group(1)) * SCALE.get((tokens.group(2) or "").lower(), 1)
        daily = _PER_DAY.match(text, tokens.end())
        if daily and q.request["task"] == "inference":
            q.request["tokens_per_day"] = said
            q.read.append(daily.group(0))
        else:
            q.request["tokens"] = said
    elif (rate := REQUESTS.search(text)) and q.request["task"] == "inference":
        request_rate(q, rate)
    elif q.hours is not None:
        q.request["tokens"] = DEFAULT_TOKENS  # replaced by what the GPUs do in q.hours
    else:
        q.request["tokens"] = DEFAULT_TOKENS
        q.defaults.append(
            ("tokens", DEFAULT_TOKENS, "no token count: one million (gpucost's rule)")
        )
    memory = _MEMORY.search(text)
    if memory:
        q.min_memory_gb = float(memory.group(1))
    return q


def _estimate(view: CatalogView, settings: Settings, body: dict[str, Any]) -> LlmEstimateResult:
    # The estimate's schema and use case are imported by the first language-model job.
    from app.models.llm import LlmEstimateRequest
    from app.usecases.llm_estimate import compute_llm_estimate

    return compute_llm_estimate(view, LlmEstimateRequest.model_validate(body), settings)


def _what(result: LlmEstimateResult) -> str:
    m = result.model
    how = f"{m['precision']}, {m['engine']}" if m.get("engine") else m["precision"]
    return f"{m['task'].replace('_', ' ')} of {m.get('name', m['model'])} ({how})"


def _tokens_text(tokens: float) -> str:
    return f"{tokens / 1e6:,.0f}M tokens" if tokens >= 1e6 else f"{tokens:,.0f} tokens"


def llm_answer(view: CatalogView, settings: Settings, out: Answer, q: LlmQuestion) -> QueryAnswer:
    """Answer ``q`` with the estimate: buy or rent (:func:`_break_even`), a stated duration
    (:func:`_in_duration`), else the cheapest GPUs that hold the job, or the GPUs of the
    memory the question names."""
    out.it.intent = "llm_estimate"
    drop_model_words(out.it, q)
    body = dict(q.request)
    named = out.it.gpu or out.it.cloud.gpu
    if named is not None:
        body["gpus"] = list(named.ids)
        if named.count > 1:  # "on two 3090s": that many hold it, or not
            body["gpu_count"] = named.count
    elif q.min_memory_gb is not None:
        gpus = [g.id for g in view.gpus if round(g.memory_gb) == q.min_memory_gb]
        if gpus:
            body["gpus"] = gpus
    for name, value, source in q.defaults:
        out.read_as(name, value, source)
    if q.hours is not None and q.tokens_given:
        out.read_as(
            "duration", f"{q.hours:g} h", "not used: the job's time comes from its token count"
        )
    elif q.hours is not None:
        body = _from_duration(view, settings, out, body, q.hours)
    if q.break_even:
        return _break_even(view, settings, out, body)
    if q.hours is not None and not q.tokens_given:
        return _in_duration(view, settings, out, body, q.hours)
    if "tokens_per_day" in body:
        result = _estimate(view, settings, body)
        out.assumed(result.assumptions)
        return serving_answer(out, body, result, _what(result))
    if q.per_second or q.room:
        result = _estimate(view, settings, body)
        out.assumed(result.assumptions)
        if q.room:
            return room_answer(out, q.room, body, result, _what(result))
        return speed_answer(out, body, result, _what(result))
    return _fits_answer(view, settings, out, q, body)


def _from_duration(
    view: CatalogView, settings: Settings, out: Answer, body: dict[str, Any], hours: float
) -> dict[str, Any]:
    """``body`` with ``tokens`` set to what the GPUs the question names (else the cheapest
    that hold the job) process in ``hours``, at the estimate's rate; stated."""
    rows = _estimate(view, settings, body).estimates
    timed = [e for e in rows if e.tokens_per_s]
    row = next((e for e in timed if e.fits), None) or min(
        timed, key=lambda e: e.gpus_needed or math.inf, default=None
    )
    if row is None or row.tokens_per_s is None:
        return body
    from app.steps.llm import tokens_in

    tokens = out.take(tokens_in(row.gpu_id, row.gpus_priced, row.tokens_per_s, hours))
    # A named GPU (family) is answered on the one the rate came from.
    return {**body, "tokens": tokens} | ({"gpus": [row.gpu_id]} if "gpus" in body else {})


def _in_duration(
    view: CatalogView, settings: Settings, out: Answer, body: dict[str, Any], hours: float
) -> QueryAnswer:
    """A job of a stated duration: what it processes, whether it fits, what it costs."""
    result = _estimate(view, settings, body)
    out.assumed(result.assumptions)
    rows = result.estimates
    e = next((r for r in rows if r.fits and r.runtime_s), None) or next(
        (r for r in rows if r.runtime_s), None
    )
    what = _what(result)
    if e is None:
        return out.done(f"{what}: no GPU asked about can be timed", answered=False)
    out.fact("Memory on one GPU", f"{e.memory_gb_per_gpu:.1f} GB of {e.memory_gb:g} GB")
    out.fact("Tokens", _tokens_text(float(result.model["tokens"])))
    holds = "" if e.fits else f" (one does not hold it: needs {e.gpus_needed})"
    per = "per GPU" if e.fits else "on one GPU"
    if e.cloud is not None:
        out.fact("Rent", f"{money(e.cloud.cost_usd)} at {e.cloud.offer_id}")
    if e.owned is not None:
        out.fact("Own", f"{money(e.owned.cost_usd)} (electricity + amortized purchase)")
    cost = (
        f"; renting costs {money(e.cloud.cost_usd)} ({e.cloud.provider})"
        if e.cloud is not None
        else ""
    )
    headline = (
        f"{what} on {e.gpus_priced}x {e.gpu_id}{holds} for {hours:g} h: about "
        f"{_tokens_text(float(result.model['tokens']))}, {e.memory_gb_per_gpu:.1f} GB {per}"
        f"{cost}"
    )
    return out.done(
        headline,
        endpoint="/v1/llm/estimate",
        request=body,
        result=result.model_dump(mode="json")["estimates"][:1],
    )


def _break_even(
    view: CatalogView, settings: Settings, out: Answer, body: dict[str, Any]
) -> QueryAnswer:
    """Buy or rent: runs of the job after which a desktop pays for itself against a rental
    (both chosen by :func:`app.steps.llm_buy.buy_or_rent`): ``upfront / (rental per run -
    the box's electricity per run)``; with the question's hours a week, in calendar time."""
    named = body.get("gpus", [])
    every = {k: v for k, v in body.items() if k != "gpus"}
    result = _estimate(view, settings, every)
    out.assumed(result.assumptions)
    what = _what(result)
    from app.steps.llm_buy import buy_or_rent

    pair = out.take(buy_or_rent(view, result.estimates, named))
    if pair is None:
        return out.done(
            f"{what}: no desktop and rental that hold it in the catalog", answered=False
        )
    desk, rent = pair.box, pair.rental
    box = desk.owned
    assert box is not None and desk.runtime_s is not None and rent.row.cloud is not None
    saving = rent.cost_usd - box.electricity_usd
    out.fact("Box", f"{money(box.upfront_usd)}, {desk.gpus_priced}x {desk.gpu_id}")
    out.fact(
        "Run on the box",
        f"{runtime_text(desk.runtime_s)}, {money(box.electricity_usd)} of electricity",
    )
    held = (
        f"{rent.instances}x {rent.gpus_per_instance}-GPU instance"
        if rent.gpus_per_instance > 1
        else f"{rent.instances}x {rent.row.gpu_id}"
    )
    out.fact("Run rented", f"{money(rent.cost_usd)} at {rent.row.cloud.offer_id} ({held})")
    out.fact("Memory per GPU", f"{desk.memory_gb_per_gpu:.1f} GB of {desk.memory_gb:g} GB")
    runs = box.upfront_usd / saving if saving > 0 else None
    if runs is None:
        headline = (
            f"{what}: a run rented ({money(rent.cost_usd)}) costs no more than the box's "
            f"electricity ({money(box.electricity_usd)}): a {desk.gpu_id} box never pays for itself"
        )
    else:
        tokens = math.ceil(runs) * float(every["tokens"])
        busy_days = math.ceil(runs) * desk.runtime_s / 86400.0
        out.fact(
            "Runs to pay back",
            f"{math.ceil(runs):,} ({_tokens_text(tokens)}, {busy_days:,.0f} days busy)",
        )
        headline = (
            f"{what}: a {money(box.upfront_usd)} {desk.gpus_priced}x {desk.gpu_id} box pays for "
            f"itself after {math.ceil(runs):,} runs of {_tokens_text(float(every['tokens']))} "
            f"({_calendar(busy_days, out.it.utilization)}): {money(box.electricity_usd)} of "
            f"electricity a run vs {money(rent.cost_usd)} renting {rent.row.gpu_id}"
        )
    return out.done(
        headline,
        endpoint="/v1/llm/estimate",
        request=every,
        result={
            "desktop": desk.model_dump(mode="json"),
            "rental": rent.row.model_dump(mode="json"),
            "rental_cost_usd_per_run": rent.cost_usd,
            "runs_to_break_even": runs,
        },
    )


def _calendar(busy_days: float, utilization: float | None) -> str:
    """Busy days, and the calendar time they take at the question's utilization."""
    if not utilization:
        return f"{busy_days:,.0f} days of the box busy"
    years = busy_days / utilization / 365
    return f"{busy_days:,.0f} days busy: {years:,.1f} years at {utilization:.0%} of the time"


def _at_four_bit(view: CatalogView, settings: Settings, body: dict[str, Any]) -> str:
    """What serving a model that does not fit would need with 4-bit weights (int4), when that
    fits: the words to add to the headline, else none (training in 4 bits is QLoRA, another
    task)."""
    alt = _estimate(view, settings, {**body, "precision": "int4"})
    fit = [e for e in alt.estimates if e.fits]
    if not fit:
        return ""
    e = fit[0]
    count = body.get("gpu_count", e.gpus_priced or 1)
    return (
        f"; with 4-bit weights (int4) it needs {e.memory_gb_per_gpu:.1f} GB per GPU: "
        f"{count}x {e.gpu_id} {'holds' if count == 1 else 'hold'} it (ask `... at int4`)"
    )


def _fits_answer(
    view: CatalogView, settings: Settings, out: Answer, q: LlmQuestion, body: dict[str, Any]
) -> QueryAnswer:
    """The cheapest GPUs that hold the job, or whether the card size asked about does."""
    result = _estimate(view, settings, body)
    out.assumed(result.assumptions)
    rows = result.estimates
    fit = [e for e in rows if e.fits]
    what = _what(result)
    need = rows[0].memory_gb_per_gpu if rows else 0.0
    out.fact("Memory per GPU", f"{need:.1f} GB")
    for e in (fit or rows)[:5]:
        time = runtime_text(e.runtime_s) if e.runtime_s else "no time"
        cost = f", {money(e.cost_usd)}" if e.cost_usd is not None else ""
        holds = "fits" if e.fits else f"needs {e.gpus_needed}"
        out.fact(e.gpu_id, f"{holds}, {time}{cost}")
    if q.min_memory_gb is not None:
        ok = bool(fit)
        headline = (
            f"{what} {'fits' if ok else 'does not fit'} on one {q.min_memory_gb:g} GB card: "
            f"{need:.1f} GB per GPU"
        )
    elif fit and "gpu_count" in body:
        best = fit[0]
        headline = (
            f"{what} fits {body['gpu_count']}x {best.gpu_id}: {need:.1f} GB per GPU against "
            f"{best.memory_gb:g} GB"
        )
    elif fit:
        best = fit[0]
        cost = f" for {money(best.cost_usd)}" if best.cost_usd is not None else ""
        held = (
            f"{best.gpu_id} holds it ({need:.1f} GB):"
            if len(rows) == 1
            else f"{len(fit)} of {len(rows)} catalog GPU models hold it ({need:.1f} GB); "
            f"cheapest {best.gpu_id},"
        )
        headline = f"{what}: {held} {runtime_text(best.runtime_s or 0)}{cost}"
    elif "gpu_count" in body and rows:
        headline = (
            f"{what} does not fit {body['gpu_count']}x {rows[0].gpu_id}: {need:.1f} GB per GPU "
            f"against {rows[0].memory_gb:g} GB"
        )
    else:
        headline = f"{what} needs {need:.1f} GB: no single catalog GPU holds it"
    if not fit and "precision" not in body and body.get("task") == "inference":
        headline += _at_four_bit(view, settings, body)
    return estimate_done(out, headline, body, result)
