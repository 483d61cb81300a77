"""Answer a plain-language question: parse it (:mod:`app.query.parser`), fill the missing
parts with documented defaults, call the cost engine, and phrase the answer.

Defaults for parts a question leaves out (each is reported in ``defaults``):

* **Desktop barebone**: the engine's rule, the cheapest catalog barebone of the newest priced
  year that holds the GPUs (a server for datacenter cards). Seed 001's $2,200 desktop is
  ``break-even for 3090 at $2200``.
* **Cloud side of a break-even**: today's comparable offer, named and dated: the cheapest
  on-demand offer of the same GPU and GPU count (Colab excluded: its usage limits make it no
  like-for-like substitute); failing that, the cheapest on-demand offer of a GPU with similar
  memory bandwidth (within 25 %) and at least the same memory. Seed 001's 2020 V100 spot rate
  is no default; naming it (``vs v100 spot at $2.14/h``) reproduces the seed.
* **A provider or pricing model without a GPU** (``vs aws spot``): the cheapest matching offer
  of the same GPU, else of a similar GPU as above.
* **Run-cost options**: the cloud side if given; else for a GPU the cheapest offer per provider
  (up to 5) plus a desktop with that GPU when its price is known; for a benchmark without a GPU,
  seed 004's Paperspace offers (the post's table).
* **Carbon duration**: one year (365 days) when none is given.
* Utilization, electricity price and carbon intensity: the engine's defaults (seed 001's 15 %,
  $0.12/kWh, world average), stated in the result's ``assumptions``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING

from app.catalog import queries as catalog
from app.catalog.view import CatalogView
from app.costing import CostingError, offers
from app.errors import DomainError, InvalidRequest
from app.models.answers import Assumption
from app.models.interpretation import Interpretation
from app.models.query import QueryAnswer
from app.query import ask_back, followup
from app.query.answer_common import (
    EXAMPLES,
    MAX_OPTIONS,
    Answer,
    cloud_text,
    money,
    own_price,
    refuse,
)
from app.query.answer_gpus import colab_answer, gpu_compare_answer, gpu_list_answer
from app.query.answer_rent import SPOT_NOTE, is_rental, rental_answer
from app.query.lexicon import Lexicon
from app.query.llm_words import drop_model_words, llm_answer, read_llm
from app.query.parser import parse
from app.settings import Settings
from app.steps import gpu_choice
from app.steps.offer_search import matching_offers
from app.steps.spot import offer_overhead

if TYPE_CHECKING:
    from app.models import CloudOffer
    from app.models.plan import PlanRequest, PlanResult

Builder = Callable[[CatalogView, Settings, Answer], QueryAnswer]


def lexicon(view: CatalogView) -> Lexicon:
    """The parser's vocabulary, built once per catalog view."""
    return view.memoized(
        "query.lexicon",
        lambda: Lexicon.build(
            **catalog.vocabulary(view),
            currencies=view.fx_rates,
        ),
    )


def _answer(view: CatalogView, settings: Settings, it: Interpretation) -> QueryAnswer:
    """Answer a parsed question. Raises :class:`NotUnderstood` (422) with suggestions when it
    cannot be read, and the engine's errors (404 unknown name or catalog gap, 422 invalid
    input)."""
    if it.problems:
        raise refuse(it, "; ".join(it.problems))
    if it.intent == "unknown":
        raise refuse(it, "I could not tell what you are asking.")
    out = Answer(it)
    if _renting_only(view, it):
        # "A100 on aws", "8 H100s on aws spot": a GPU no desktop is priced with, and a cloud
        # side without its own GPU: the question is where to rent it.
        it.cloud.gpu, it.gpu, it.intent = it.gpu, None, "offers"
        out.read_as(
            "intent",
            "offers",
            "no desktop price for this GPU in the catalog and a cloud side named: read as "
            "where to rent it (ask `break-even` with a desktop price to compare buying)",
        )
    if is_rental(out):  # "8x H100 for a week", "80 gpu-hours on a lambda a100"
        return rental_answer(view, settings, out)
    if it.intent == "help":
        for example in EXAMPLES:
            out.fact("Try", example)
        return out.done(
            "Ask about break-even (with your own prices, used cards and hours), run cost, cost "
            "per batch item, carbon, electricity, offers, two GPUs side by side, Colab plans, "
            "GPUs, language-model jobs (fit, time, tokens/s, buy or rent) and fleet plans"
        )
    return _BUILDERS[it.intent](view, settings, out)


def _renting_only(view: CatalogView, it: Interpretation) -> bool:
    """A break-even read from a datacenter GPU with no desktop price (and none given), against
    a cloud side that names no GPU and no price of its own."""
    if it.intent != "break_even" or it.gpu is None or it.cloud.gpu is not None or own_price(it):
        return False
    if it.cloud.provider is None and it.cloud.pricing_model is None:
        return False
    gpus = [view.gpu(g) for g in it.gpu.ids]
    return it.cloud.price_usd_per_hour is None and all(
        g is not None and g.purchase_price() is None for g in gpus
    )


def respond(
    view: CatalogView, settings: Settings, text: str, previous: str | None = None
) -> QueryAnswer:
    """Answer ``text`` (parsed once). A question that cannot be answered (not understood, an
    unknown or ambiguous name, a catalog gap, inputs the engine refuses) comes back as
    ``answered=False`` with the reason as ``headline``, ``suggestions`` and ``examples``; only
    unexpected errors raise. With ``previous`` (the question before it in a conversation),
    ``text`` is a follow-up that changes it (:mod:`app.query.followup`). A refusal for want
    of a GPU or a run length offers ``choices`` (:mod:`app.query.ask_back`)."""
    if previous and previous.strip() and previous.strip() != text.strip():
        return ask_back.with_choices(view, _follow_up(view, settings, previous, text))
    return ask_back.with_choices(view, _respond(view, settings, text))


def _respond(view: CatalogView, settings: Settings, text: str) -> QueryAnswer:
    """:func:`respond` without a previous question, before any choices are offered."""
    it = parse(text, lexicon(view))
    try:
        llm = read_llm(view, text)  # a language-model job: answered by /v1/llm/estimate
        if llm is not None and _job_carbon(it):
            drop_model_words(it, llm)
        elif llm is not None:
            return llm_answer(view, settings, Answer(it), llm)
        return _answer(view, settings, it)
    except (DomainError, CostingError) as exc:
        return _declined(it, exc)


def _follow_up(view: CatalogView, settings: Settings, previous: str, text: str) -> QueryAnswer:
    """``previous`` changed by the follow-up ``text``: the interpretations merged in turn
    (:func:`app.query.followup.merge`; ``previous`` may hold the question and its earlier
    follow-ups, one per line, as a Slack thread keeps them); a language-model job's words
    are read on all of them together. The answer's ``query`` is ``text``, ``follows`` is
    ``previous`` and a default says what changed."""
    lex = lexicon(view)
    turns = [t for t in previous.splitlines() if t.strip()]
    if read_llm(view, turns[0]) is not None:
        joined = ", ".join([*turns, text])
        ans = _respond(view, settings, joined)
        said = [f"read together: '{joined}'"]
    else:
        before = parse(turns[0], lex)
        for turn in turns[1:]:
            before = followup.merge(before, parse(turn, lex))
        merged = followup.merge(before, parse(text, lex))
        said = followup.changes(before, merged) or ["nothing the follow-up said changes it"]
        try:
            ans = _answer(view, settings, merged)
        except (DomainError, CostingError) as exc:
            ans = _declined(merged, exc)
    note = Assumption(
        name="follows",
        value=previous,
        source="a follow-up: the question before it, with " + "; ".join(said),
    )
    return ans.model_copy(
        update={"query": text, "follows": previous, "defaults": [note, *ans.defaults]}
    )


def _job_carbon(it: Interpretation) -> bool:
    """A carbon question about named GPUs for a stated time ("carbon of fine-tuning llama 3
    70b on 2 a100s for 10 hours"): the job's emissions are those GPUs' over that time,
    answered by /v1/carbon whatever the model."""
    timed = it.runtime_s or it.gpu_hours or it.horizon_days
    return it.intent == "carbon" and bool(it.gpu or it.cloud.gpu) and bool(timed)


def _declined(it: Interpretation, exc: DomainError | CostingError) -> QueryAnswer:
    """The ``answered=False`` answer for a question the engine refused."""
    suggestions: list[str]
    if isinstance(exc, CostingError):
        detail, suggestions, examples = exc.message, [], EXAMPLES[:2]
    else:
        detail = exc.detail
        suggestions = exc.extra.get("suggestions") or exc.extra.get("candidates") or []
        examples = exc.extra.get("examples") or EXAMPLES[:2]
    return Answer(it).done(
        detail, answered=False, suggestions=list(suggestions), examples=list(examples)
    )


@dataclass(frozen=True)
class PlanPending:
    """A fleet-plan question read and checked, its plan still to compute (in the worker's
    bounded plan path: a drawing process when it has them) before :func:`finish_plan`."""

    out: Answer
    request: PlanRequest


def prepare(
    view: CatalogView, settings: Settings, text: str, previous: str | None = None
) -> QueryAnswer | PlanPending:
    """:func:`respond`, except that a fleet-plan question stops before its plan (0.1-2.5 s
    of CPU) is computed: its request comes back, so that the caller computes the plan where
    heavy work runs and the chat's own bound is free for other questions meanwhile. A
    follow-up (``previous``) is answered by :func:`respond`."""
    if previous and previous.strip():
        return respond(view, settings, text, previous)
    it = parse(text, lexicon(view))
    out = Answer(it)
    if it.intent != "plan" or it.problems or is_rental(out) or read_llm(view, text):
        return respond(view, settings, text)
    from app.query.answer_plan import plan_question

    try:
        return PlanPending(out, plan_question(view, out))
    except (DomainError, CostingError) as exc:
        return _declined(it, exc)


def finish_plan(view: CatalogView, pending: PlanPending, result: PlanResult) -> QueryAnswer:
    """The answer to a :class:`PlanPending` question from its computed plan."""
    from app.query.answer_plan import plan_reply

    try:
        return plan_reply(view, pending.out, pending.request, result)
    except (DomainError, CostingError) as exc:
        return _declined(pending.out.it, exc)


def _offers_answer(view: CatalogView, settings: Settings, out: Answer) -> QueryAnswer:
    it = out.it
    c = it.cloud
    mention = c.gpu or it.gpu
    ids = mention.ids if mention else None
    if ids is None and it.min_gpu_memory_gb:
        ids = out.take(gpu_choice.gpus_with_memory(view, it.min_gpu_memory_gb))
    count = mention.count if mention and mention.count > 1 else None
    # GPUs chosen by memory are not widened (a family holds smaller cards) and skip Colab
    by_memory = bool(ids and it.min_gpu_memory_gb and not mention)
    found = out.take(
        matching_offers(
            view,
            c,
            ids,
            count,
            # on demand unless asked; a price ceiling ("under $30/h") takes any pricing under it
            pricing=None if c.price_usd_per_hour is not None else "on_demand",
            widen=not by_memory,
            exclude_colab=by_memory,
        )
    )
    if c.price_usd_per_hour is not None:
        found = [o for o in found if float(o.price_usd_per_hour) <= c.price_usd_per_hour]
    if not found:
        where = f" at {c.provider} or any other provider" if c.provider else ""
        asked = "/".join(ids) if ids and mention else cloud_text(it)
        raise refuse(it, f"the catalog has no offer of {asked}{where} matching the question")
    found = _one_per_instance(found)
    best = found[0]
    name = mention.text.upper() if mention else "GPU"
    if not mention and it.min_gpu_memory_gb:
        name = f"GPU with at least {it.min_gpu_memory_gb:g} GB"
    headline = (
        f"Cheapest {name}: {money(offers.price_per_gpu_hour(best))} per GPU-hour on {best.provider} "
        f"{best.instance_type} ({best.pricing_model}, {best.gpu_count}x {best.gpu_id})"
    )
    for o in found[:MAX_OPTIONS]:
        out.fact(
            f"{o.provider} {o.instance_type}",
            f"{money(offers.price_per_gpu_hour(o))}/GPU-h ({money(float(o.price_usd_per_hour))}/h for "
            f"{o.gpu_count}x {o.gpu_id}), {o.pricing_model}, {o.region or 'any region'}, "
            f"as of {o.as_of}",
        )
    if best.pricing_model in ("spot", "interruptible"):
        overhead, basis = offer_overhead(view, best.id)
        out.fact("Interruptions", SPOT_NOTE.format(overhead=overhead, basis=basis))
    out.fact("Matching offers", str(len(found)))
    rows = [
        {
            "id": o.id,
            "provider": o.provider,
            "price_usd_per_hour": float(o.price_usd_per_hour),
            "pricing_model": o.pricing_model,
            "gpu_id": o.gpu_id,
            "gpu_count": o.gpu_count,
            "region": o.region,
            "as_of": o.as_of.isoformat(),
            "source": o.source,
        }
        for o in found[:MAX_OPTIONS]
    ]
    return out.done(headline, result=rows)


def _one_per_instance(found: list[CloudOffer]) -> list[CloudOffer]:
    """The cheapest region of each (provider, instance, pricing model), cheapest first: five
    rows of one instance in five regions say less than five instances."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for o in found:
        key = (o.provider, o.instance_type, o.pricing_model)
        if key not in seen:
            seen.add(key)
            out.append(o)
    return out


def _gpu_info(view: CatalogView, settings: Settings, out: Answer) -> QueryAnswer:
    mention = out.it.gpu or out.it.cloud.gpu
    if mention is None:  # this intent is only chosen when a GPU is named
        raise InvalidRequest("name a GPU, e.g. '3090 specs'")
    gpus = [g for i in mention.ids if (g := view.gpu(i)) is not None]
    for g in gpus:
        bw = f", {g.memory_bandwidth_gb_per_s:,.0f} GB/s" if g.memory_bandwidth_gb_per_s else ""
        bought = g.purchase_price()
        price = f", {bought.describe()} {money(bought.usd)}" if bought else ""
        out.fact(g.name, f"{g.memory_gb:g} GB{bw}, {g.tdp_w:,.0f} W TDP{price} (`{g.id}`)")
    if len(gpus) == 1:
        headline = f"{gpus[0].name}: " + out.facts[0].value
    else:
        headline = f"'{mention.text}' is {len(gpus)} GPUs: " + ", ".join(g.id for g in gpus)
    from app.models.gpu import GpuPublic  # the table schema: imported when a GPU is shown

    result = [
        GpuPublic.model_validate(g, from_attributes=True).model_dump(mode="json") for g in gpus
    ]
    return out.done(headline, result=result)


def _lazy(module: str, name: str) -> Builder:
    """The answer ``name`` of ``app.query.<module>``, imported when first called: a command
    that answers one question imports that intent's use case and schemas only."""

    def build(view: CatalogView, settings: Settings, out: Answer) -> QueryAnswer:
        answer: Builder = getattr(import_module(f"app.query.{module}"), name)
        return answer(view, settings, out)

    return build


_BUILDERS: dict[str, Builder] = {
    "break_even": _lazy("answer_costs", "break_even_answer"),
    "run_cost": _lazy("answer_costs", "run_cost_answer"),
    "cost_per_item": _lazy("answer_costs", "run_cost_answer"),
    "carbon": _lazy("answer_costs", "carbon_answer"),
    "electricity": _lazy("answer_costs", "electricity_answer"),
    "offers": _offers_answer,
    "gpu_compare": gpu_compare_answer,
    "gpu_info": _gpu_info,
    "gpu_list": gpu_list_answer,
    "colab": colab_answer,
    "plan": _lazy("answer_plan", "plan_answer"),
}
