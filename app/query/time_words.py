"""Durations in a question: a horizon ("for 2 years"), a runtime ("10 hours"), GPU-hours
("80 gpu-hours", "1000 h100 hours") and a rate of them ("300 gpu-hours a month", kept per
month for the parser to turn into a utilization or a demand), and the period a rental is
priced over ("monthly cost"). Each step reads the working text and blanks what it
understood."""

from __future__ import annotations

import re

from app.models.interpretation import Interpretation
from app.query.lexicon import Lexicon
from app.query.vocabulary import AMOUNT, DAYS_PER_UNIT, NUM, amount_of, to_number, unit_days
from app.query.work import Work


def durations(w: Work, it: Interpretation) -> None:
    for m in w.take(
        rf"{NUM}\s*(k)?\s*gpu[\s-]*(?:hours?|hrs?|h)\b"
        rf"(?:\s*(?:(?:/|per|a|an|each|every)\s*(month|mo|week|day)|(monthly|weekly|daily)))?"
    ):
        value = to_number(m.group(1)) * (1000 if m.group(2) else 1)
        if value <= 0:
            it.problems.append("GPU-hours must be positive")
            continue
        per = m.group(3) or {"monthly": "month", "weekly": "week", "daily": "day"}.get(
            m.group(4) or ""
        )
        if per:
            # a rate: GPU-hours per calendar period -> stored per month, turned into a
            # utilization once the GPU count is known
            days = DAYS_PER_UNIT["month" if per == "mo" else per]
            it.gpu_hours_per_month = value * (DAYS_PER_UNIT["month"] / days)
        else:
            it.gpu_hours = value
    for m in w.take(
        rf"(?:\b(?:for|over|next|during|within|in)\s+(?:the\s+)?(?:next\s+)?)?"
        rf"{AMOUNT}\s*(?:-\s*)?(years?|yrs?|y|months?|mos?|weeks?|wks?|days?)\b"
    ):
        n = amount_of(m, 1)
        if n <= 0:
            it.problems.append(f"a duration of '{m.group(0).strip()}' must be positive")
        elif it.horizon_days is not None:
            it.declined.append(f"'{m.group(0).strip()}': one period per question; used the first")
        else:
            it.horizon_days = n * unit_days(m.group(3))
    for m in w.take(
        rf"{NUM}\s*(hours?|hrs?|h|minutes?|mins?|seconds?|secs?)\b(?!\s*(?:/|a|per)\s*day)"
    ):
        n = to_number(m.group(1))
        unit = m.group(2)
        scale = 3600 if unit.startswith("h") else 60 if unit.startswith("m") else 1
        if n <= 0:
            it.problems.append(f"a runtime of '{m.group(0).strip()}' must be positive")
        else:
            it.runtime_s = n * scale
    # "cost per month of renting a 4090 20 hours a week": the period a rental is priced over
    renting = re.search(r"\brent(?:s|ing|al|ed)?\b", w.text)
    if renting and it.horizon_days is None and it.runtime_s is None and it.gpu_hours is None:
        per = w.take(rf"\b(?:(?:cost|price|bill|spend)\s+)?(?:per|a|each|every)\s+({_PERIODS})\b")
        per = per or w.take(r"\b(monthly|weekly|yearly|annual)\s+(?:cost|price|bill|spend)\b")
        if per:
            it.horizon_days = _PERIOD_DAYS[per[0].group(1)]


_PERIODS = "month|week|year|day"
_PERIOD_DAYS = {
    "month": DAYS_PER_UNIT["month"], "week": DAYS_PER_UNIT["week"], "year": DAYS_PER_UNIT["year"],
    "day": DAYS_PER_UNIT["day"], "monthly": DAYS_PER_UNIT["month"], "weekly": DAYS_PER_UNIT["week"],
    "yearly": DAYS_PER_UNIT["year"], "annual": DAYS_PER_UNIT["year"],
}  # fmt: skip


def gpu_named_hours(w: Work, it: Interpretation, lex: Lexicon) -> None:
    """'1000 h100 hours', '10k a100 hours': GPU-hours of the GPU named between the number and
    'hours' (the name is left for the GPU reader; 'h100 hours' is not '100 hours')."""
    pattern = (
        rf"{NUM}\s*(k)?\s+([a-z]*[\s-]?\d{{2,4}}[a-z0-9-]*)\s+(?:gpu[\s-]*)?(?:hours?|hrs?)\b"
        r"(?:\s*(?:/|per|a|an|each|every)\s*(month|week|day)\b)?"
    )
    for m in list(re.finditer(pattern, w.text)):
        if not lex.gpus.exact(m.group(3)) or it.gpu_hours or it.gpu_hours_per_month:
            continue
        value = to_number(m.group(1)) * (1000 if m.group(2) else 1)
        if value <= 0:
            it.problems.append("GPU-hours must be positive")
            continue
        if m.group(4):  # a rate, as "N gpu-hours a month" (see durations)
            it.gpu_hours_per_month = value * DAYS_PER_UNIT["month"] / DAYS_PER_UNIT[m.group(4)]
        else:
            it.gpu_hours = value
        w.blank(m.start(), m.start(3))
        w.blank(m.end(3), m.end())
