"""Asking back instead of guessing: when a question lacks what its answer turns
on, the refusal says what is missing (``headline``) and offers two or three one-click
choices, each a follow-up of the question (:class:`~app.models.query.Choice`; Slack shows
them as buttons). Choices are options to pick from, never defaults: nothing is answered
until one is picked.

* No GPU named where one is needed (:data:`~app.models.interpretation.NEEDS_GPU`): of the
  cards with a desktop price, the consumer, workstation and datacenter card the catalog's
  clouds offer most on demand (:func:`app.steps.gpu_choice.common_cards`).
* A run cost without a run length: 1, 10 or 100 hours on the GPU named.
"""

from __future__ import annotations

from app.catalog.view import CatalogView
from app.models.interpretation import NEEDS_GPU
from app.models.query import Choice, QueryAnswer
from app.steps.gpu_choice import common_cards

CHOICES = 3  # buttons under a question asked back
RUN_LENGTH_ASKED = "How long does one run take"
RUN_HOURS = (1, 10, 100)  # one-click run lengths offered, hours


def with_choices(view: CatalogView, ans: QueryAnswer) -> QueryAnswer:
    """``ans`` with :attr:`QueryAnswer.choices` when it is a refusal that asks back (see the
    module's docstring); any other answer unchanged."""
    if ans.answered:
        return ans
    problems = ans.interpretation.problems
    if any(p in NEEDS_GPU.values() for p in problems):
        names = [(g, view.gpu(g)) for g in common_cards(view, CHOICES)]
        choices = [(gpu.name if gpu else gid, f"a {gid}") for gid, gpu in names]
    elif ans.headline.startswith(RUN_LENGTH_ASKED) and ans.interpretation.gpu is not None:
        choices = [(f"{h} h", f"for {h} hour{'s' if h != 1 else ''}") for h in RUN_HOURS]
    else:
        return ans
    # a follow-up still lacking it: the question and its follow-ups, one per line
    base = f"{ans.follows}\n{ans.query}" if ans.follows else ans.query
    return ans.model_copy(
        update={"choices": [Choice(label=label, q=q, previous=base) for label, q in choices]}
    )
