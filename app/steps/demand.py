"""How much GPU time is asked for: a request's utilization or its profile
(:func:`resolve_usage`), and, when a question gives it in other terms, people, a horizon
outside a plan's range, a period without a utilization, or nothing at all. Each choice is an
:class:`~app.costing.sourced.Assumed` note, shared by chat and any caller.

Errors: :class:`~app.errors.NotFound` (404) for an unknown utilization profile, or when the
catalog lacks the profile a count of people is sized with.
"""

from __future__ import annotations

import math

from app import costing
from app.catalog.view import CatalogView
from app.costing import defaults
from app.costing.model import DAYS_PER_MONTH, HOURS_PER_DAY, HOURS_PER_MONTH
from app.costing.sourced import Assumed, Note, Sourced
from app.errors import NotFound
from app.models.inputs import MAX_PLAN_MONTHS, MIN_PLAN_MONTHS, UsageInputs
from app.steps.trail import DEFAULT_UTILIZATION_PROFILE

# A person's demand when a question counts people: seed 001's PhD-student desktop profile
# (catalog utilization profile `phd-desktop`).
PERSON_PROFILE = "phd-desktop"


def people_demand(view: CatalogView, people: int) -> Sourced[float]:
    """GPU-hours a month for ``people``, each keeping one GPU busy as the catalog's
    PhD-student desktop profile says (stated with its source). Raises :class:`NotFound`
    when the catalog has no such profile."""
    profile = view.profiles.get(PERSON_PROFILE)
    if profile is None:
        raise NotFound(f"no '{PERSON_PROFILE}' profile in the catalog to size {people} people")
    hours = people * profile.utilization * HOURS_PER_MONTH
    note = Assumed(
        "baseline_gpu_hours_per_month",
        hours,
        f"{people} people x one GPU each at '{profile.name}' {profile.utilization:.0%} "
        f"({profile.description}; {profile.source}) x {HOURS_PER_MONTH:g} h a month",
    )
    return Sourced(hours, (note,))


def no_demand(*, budget_only: bool) -> Sourced[float]:
    """A plan's monthly demand when none is given: 0 (only the peaks, or, with a budget and
    no peaks, what the budget buys), stated."""
    why = (
        "no demand given (say `for 8 students` or `300 gpu-hours a month`): what the budget buys"
        if budget_only
        else "no monthly demand given: only the peaks"
    )
    return Sourced(0.0, (Assumed("baseline_gpu_hours_per_month", 0, why),))


def plan_months(days: float) -> Sourced[int]:
    """A horizon of ``days`` in whole months within a plan's 12 to 60 (stated when
    clamped)."""
    asked = round(days / DAYS_PER_MONTH)
    months = min(MAX_PLAN_MONTHS, max(MIN_PLAN_MONTHS, asked))
    if months == asked:
        return Sourced(months, ())
    note = Assumed(
        "months",
        months,
        f"a plan spans {MIN_PLAN_MONTHS} to {MAX_PLAN_MONTHS} months; {asked} asked",
    )
    return Sourced(months, (note,))


def busy_hours(days: float, utilization: float | None) -> Sourced[float]:
    """The GPU hours of ``days`` at ``utilization``; without one, around the clock
    (stated)."""
    if utilization is not None:
        return Sourced(days * HOURS_PER_DAY * utilization, ())
    hours = days * HOURS_PER_DAY
    note = Assumed("hours", hours, f"{days:g} days around the clock (say `at 25%`)")
    return Sourced(hours, (note,))


def busy_runtime_s(days: float, utilization: float | None) -> Sourced[float]:
    """A run's seconds over ``days`` at ``utilization``; without one, busy around the clock
    (stated)."""
    seconds = days * HOURS_PER_DAY * 3600 * (1.0 if utilization is None else utilization)
    if utilization is not None:
        return Sourced(seconds, ())
    note = Assumed(
        "runtime_s",
        seconds,
        f"{days:g} days busy around the clock (no utilization given; say `at 25%` for less)",
    )
    return Sourced(seconds, (note,))


def carbon_days(days: float | None) -> Sourced[float]:
    """The period a carbon estimate covers: ``days`` when given, else the registry's
    default year (:data:`app.costing.defaults.CARBON_DAYS`, stated)."""
    if days:
        return Sourced(days, ())
    d = defaults.CARBON_DAYS
    return Sourced(d.number, (Assumed(d.key, d.number, d.source_text()),))


def busy_throughout() -> Sourced[float]:
    """Utilization 1.0 for a training job over a period ("training on 8 A100s for 3 days"):
    the GPUs are busy for the whole of it (stated)."""
    return Sourced(
        1.0, (Assumed("utilization", 1.0, "training for the whole period: busy throughout"),)
    )


def resolve_usage(
    view: CatalogView, req: UsageInputs, *, idle_on_fraction: float = 0.0
) -> Sourced[costing.Usage]:
    """Utilization from the request, its named profile, or the seed's 15 % default."""
    notes: list[Note] = []
    if req.utilization is not None:
        u = req.utilization
    else:
        profile_id = req.utilization_profile or DEFAULT_UTILIZATION_PROFILE
        profile = view.profile(profile_id)
        u = profile.utilization
        how = "requested profile" if req.utilization_profile else "default profile"
        notes.append(Assumed("utilization", u, f"{how} '{profile.id}': {profile.source}"))
    return Sourced(costing.Usage(u, idle_on_fraction), tuple(notes))


def gpus_for_monthly_hours(gpu_hours_per_month: float) -> Sourced[tuple[int, float]]:
    """The fewest GPUs that deliver ``gpu_hours_per_month`` (each at most 730 h a month) and
    the utilization each then runs at, for a buy-or-rent question that names the hours but
    no GPU count (stated)."""
    count = max(1, math.ceil(gpu_hours_per_month / HOURS_PER_MONTH - 1e-9))
    utilization = gpu_hours_per_month / (HOURS_PER_MONTH * count)
    note = Assumed(
        "desktop.gpu_count",
        count,
        f"{gpu_hours_per_month:g} GPU-hours a month need at least {count} GPUs "
        f"({HOURS_PER_MONTH:g} h a month each), each busy {utilization:.0%}; the cloud side "
        "rents the same hours",
    )
    return Sourced((count, utilization), (note,))
