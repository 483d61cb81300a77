"""A follow-up changes the question before it: "and at 50 %?", "what about a 4090?", "in
germany?", "for 3 years?" after "break-even for 3090 at 15% util" ask the same break-even
with that one value changed. A step of :func:`app.query.answer.respond` (``previous``).

:func:`merge` takes the earlier question's :class:`Interpretation` and overrides each value
the follow-up gives (a GPU, a cloud provider or pricing model, a utilization, a region, a
horizon, a price, ...); everything it does not mention is kept. The intent stays the
earlier one unless the follow-up names another in so many words (buy or rent, cost per
item, carbon, electricity): "and spot?" is the same break-even against spot, not a list of
spot offers. Pure: no catalog, no I/O.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from app.models.interpretation import NEEDS_GPU, CloudQuery, Intent, Interpretation
from app.query.vocabulary import ELECTRICITY, INTENT_PATTERNS

# Intents a follow-up may switch to, by the keyword list's own patterns: those asked in so
# many words (a bare "cost", "rent" or "cheapest" in a follow-up refines, it does not switch).
_SWITCHING = ("break_even", "cost_per_item", "carbon")
# Fields merged otherwise than "the follow-up's value when it gives one".
_OWN_RULES = frozenset(
    {"text", "intent", "gpu", "cloud", "peaks", "share", "corrected", "declined", "ignored"}
    | {"problems", "suggestions"}
)


def named_intent(text: str) -> Intent | None:
    """The intent ``text`` asks for by name (see :data:`_SWITCHING`), or None."""
    low = text.lower()
    for intent, pattern in INTENT_PATTERNS:
        if intent in _SWITCHING and pattern.search(low):
            return intent
    return "electricity" if ELECTRICITY.search(low) else None


def _cloud(before: CloudQuery, change: CloudQuery) -> CloudQuery:
    """The cloud side with each value the follow-up names replaced; another provider drops
    the earlier instance type and price, which were that provider's."""
    out = copy.deepcopy(before)
    if change.provider and change.provider != before.provider:
        out.instance_type = None
        out.price_usd_per_hour = None
        out.colab_plan = None
    for f in dataclasses.fields(CloudQuery):
        value = getattr(change, f.name)
        if value is not None:
            setattr(out, f.name, copy.deepcopy(value))
    return out


def merge(before: Interpretation, change: Interpretation) -> Interpretation:
    """``before`` with what ``change`` (the follow-up, parsed on its own) gives: see the
    module's docstring. The result is checked again (:meth:`Interpretation.check`), so a
    follow-up that leaves the question without its GPU is asked back as the first was."""
    out = copy.deepcopy(before)
    for f in dataclasses.fields(Interpretation):
        value: Any = getattr(change, f.name)
        if f.name not in _OWN_RULES and value is not None:
            setattr(out, f.name, copy.deepcopy(value))
    out.intent = named_intent(change.text) or before.intent
    if change.gpu is not None:
        out.gpu = copy.deepcopy(change.gpu)
    out.cloud = _cloud(before.cloud, change.cloud)
    out.peaks = copy.deepcopy(change.peaks or before.peaks)
    out.share = before.share or change.share
    asked_back = set(NEEDS_GPU.values())
    out.problems = [p for p in change.problems if p not in asked_back] + [
        p for p in before.problems if p not in asked_back
    ]
    out.corrected = [*before.corrected, *change.corrected]
    out.declined = [*before.declined, *change.declined]
    out.ignored = [*before.ignored, *change.ignored]
    out.suggestions = change.suggestions or before.suggestions
    out.check()
    return out


def changes(before: Interpretation, after: Interpretation) -> list[str]:
    """What the follow-up changed, as ``name = value`` (for the answer's note)."""
    said = []
    for f in dataclasses.fields(Interpretation):
        if f.name in ("text", "problems", "ignored", "declined", "corrected", "suggestions"):
            continue
        old, new = getattr(before, f.name), getattr(after, f.name)
        if old == new:
            continue
        if f.name == "cloud":
            said += [
                f"cloud.{g.name} = {getattr(new, g.name)}"
                for g in dataclasses.fields(CloudQuery)
                if getattr(old, g.name) != getattr(new, g.name) and getattr(new, g.name) is not None
            ]
        elif f.name == "gpu":
            said.append(f"gpu = {new.text if new else None}")
        else:
            said.append(f"{f.name} = {new}")
    return said
