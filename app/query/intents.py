"""The intent of a question: intents read on the whole question first (two GPUs side by
side, the GPU list, a Colab plan's price, buy-or-rent, a power bill), then keywords (typos
tolerated), then what was given (a benchmark means run cost, a GPU with a period means a
rental, ...). A step of :func:`app.query.parser.parse`."""

from __future__ import annotations

import re

from rapidfuzz import fuzz, process

from app.models.interpretation import Intent, Interpretation
from app.query.vocabulary import (
    BUY_OR_RENT,
    CLOUD_MARKER,
    COLAB_PRICE,
    COMPARE_WORDS,
    DESKTOP_WORDS,
    ELECTRICITY,
    FUZZY_INTENT_WORDS,
    GPU_LIST,
    INTENT_PATTERNS,
    PLAN,
    RENTAL_SPAN,
    WORD,
)
from app.query.work import Work

# A price per hour asked for ("what does it cost per hour", "hourly").
PER_HOUR = re.compile(r"per\s+hour|/\s*h(?:r|our)?\b|\bhourly\b|an\s+hour\b|by\s+the\s+hour")

# Renting named as what is done ("renting", "rented", "rent"), not as the alternative.
RENTING = re.compile(r"\brent(?:s|ing|al|ed)?\b")
# A break-even asked for in so many words keeps its intent even with a budget.
BREAK_EVEN = re.compile(r"break[\s-]*even|breakeven|pay\s*back|payback")


def plan_question(it: Interpretation) -> bool:
    """Whether the question asks for a fleet plan: a budget or a number of people (unless
    a break-even is asked for by name), or plan words ("plan", "fleet", "peak",
    "deadline", "own the base") with a monthly demand or a peak, and no buy-or-rent phrasing
    or Colab plan ("we plan to use 300 GPU-hours a month: buy a 4090?" is a break-even)."""
    low = it.text.lower()
    if (it.budget_usd or it.budget_in_currency or it.people) and not BREAK_EVEN.search(low):
        return True  # "$60k for 3 years and 8 students, how many 4090s?": a fleet plan
    return bool(
        (it.peaks or it.gpu_hours_per_month)
        and PLAN.search(low)
        and not (BUY_OR_RENT.search(low) or it.cloud.colab_plan)
    )


def _first_intent(it: Interpretation) -> Intent | None:
    """Intents read on the whole question before the keyword list: two GPUs side by side,
    the GPU list, a Colab plan's price, a power bill."""
    low, c = it.text.lower(), it.cloud
    cloud_named = c.provider or c.pricing_model or c.colab_plan or c.price_usd_per_hour
    if (
        it.gpu and c.gpu and not cloud_named and not DESKTOP_WORDS.search(low)
        and COMPARE_WORDS.search(low) and not (it.benchmark or it.runtime_s or it.gpu_hours)
    ):  # fmt: skip
        return "gpu_compare"
    if plan_question(it):
        return "plan"  # "plan for 300 GPU-hours a month with a peak of 2,000 in May"
    if GPU_LIST.search(low) and not (it.gpu or c.gpu):
        return "gpu_list"
    if c.provider == "colab" and not (it.gpu or c.gpu) and COLAB_PRICE.search(low):
        return "colab"
    own_price = it.gpu_price_usd or it.gpu_price or it.desktop_price_usd or it.desktop_price
    rental = c.provider or c.colab_plan or c.price_usd_per_hour or RENTING.search(low)
    if own_price and rental and not it.budget_usd and not it.people:
        return (
            "break_even"  # "brand new 4090 for £1,800 or a runpod h100?": a price paid vs a rental
        )
    if BUY_OR_RENT.search(low):
        # Buy-or-rent phrasing ("3090 or rent?", "buy vs rent") is read on the whole
        # question: its "or rent" / "vs" also marks the cloud side.
        return "break_even"
    if ELECTRICITY.search(low) and not (it.benchmark or c.provider or c.price_usd_per_hour):
        return "electricity"
    return None


def read_intent(w: Work, it: Interpretation) -> None:
    it.intent = _first_intent(it) or "unknown"
    for intent, pattern in INTENT_PATTERNS if it.intent == "unknown" else ():
        if pattern.search(w.text):
            it.intent = intent
            break
    if it.intent == "unknown":  # a misspelt keyword, one word or two run together
        tokens = list(WORD.finditer(w.text))
        spans = [
            (a.group(0) + b.group(0), a.start(), b.end())
            for a, b in zip(tokens, tokens[1:], strict=False)
        ]
        for word, start, end in [*spans, *((t.group(0), t.start(), t.end()) for t in tokens)]:
            if len(word) < 5:
                continue
            best = process.extractOne(
                word, list(FUZZY_INTENT_WORDS), scorer=fuzz.ratio, score_cutoff=78
            )
            if best:
                it.intent = FUZZY_INTENT_WORDS[best[0]]
                w.blank(start, end)
                break
    for pattern in (*(p for _, p in INTENT_PATTERNS), GPU_LIST, ELECTRICITY, COMPARE_WORDS, PLAN):
        w.take(pattern)
    mention = it.gpu or it.cloud.gpu
    work = it.runtime_s or it.gpu_hours
    if it.intent in ("offers", "gpu_info") and mention and work and not it.min_gpu_memory_gb:
        it.intent = "run_cost"  # "price for a 36h fine-tune on 2x a100": one run's cost
    nothing_to_run = not (work or it.horizon_days or it.benchmark)
    if it.intent == "run_cost" and mention and nothing_to_run and PER_HOUR.search(it.text.lower()):
        it.intent = "offers"  # "what does 8x_H100-SXM_SECURE cost per hour": its price
    if it.intent == "offers" and mention and it.horizon_days and not it.min_gpu_memory_gb:
        it.intent = "run_cost"  # "cheapest way to rent 8 h100s for a week": the rental's cost
    if it.intent == "run_cost" and _power_bill(it):
        it.intent = "electricity"  # "what does running a 5090 24/7 cost me at £0.30/kWh"
    if it.intent != "unknown":
        return
    _infer_intent(it)


def _power_bill(it: Interpretation) -> bool:
    """A cost asked of a GPU of one's own with a price per kWh and nothing to run or rent: its
    electricity."""
    kwh = it.electricity_price_usd_per_kwh is not None or it.electricity_price_per_kwh is not None
    work = it.runtime_s or it.gpu_hours or it.benchmark
    return bool(kwh and it.gpu and not work and it.cloud.is_empty() and not it.cloud.gpu)


def _infer_intent(it: Interpretation) -> None:
    """No keyword: the intent from what was given."""
    low = it.text.lower()
    has_usage = it.utilization is not None or it.utilization_profile is not None
    rented = not it.cloud.is_empty() and not CLOUD_MARKER.search(low)  # "A100 on aws"
    if it.benchmark or (it.runtime_s and (it.gpu or it.cloud.gpu)):
        it.intent = "run_cost"
    elif it.gpu and it.horizon_days and (RENTAL_SPAN.search(low) or not (has_usage or rented)):
        it.intent = "run_cost"  # "8 H100s for a week", "a year of A10G on aws at 25%"
    elif (it.gpu or it.cloud.gpu) and it.gpu_hours:
        it.intent = "run_cost"  # "80 gpu-hours on a lambda a100": their total
    elif it.cloud.gpu and not it.gpu and (it.horizon_days or it.gpu_hours):
        it.intent = "run_cost"  # "p4d.24xlarge for 3 days", "rent an a100 for a month"
    elif it.gpu and rented and not has_usage:
        it.intent = "run_cost" if it.horizon_days else "offers"  # "8 h100 on aws for a week"
    elif it.gpu and it.horizon_days and RENTING.search(low) and not BUY_OR_RENT.search(low):
        it.intent = "run_cost"  # "monthly bill renting 2 h100 at $2.40/h": the rental's cost
    elif it.gpu and (has_usage or not it.cloud.is_empty() or it.horizon_days):
        it.intent = "break_even"
    elif it.gpu:
        it.intent = "gpu_info"
    elif not it.cloud.is_empty() or it.min_gpu_memory_gb:
        it.intent = "offers"
