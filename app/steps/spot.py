"""The default interruption model of spot and interruptible offers (issue 31: spot is never
priced as uninterruptible): how often each offer's capacity is reclaimed, from AWS's Spot
Instance Advisor band for its instance type and region, else Google's published
preemption rate; the checkpoint interval and restart time are stated defaults the caller
overrides with ``spot``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.catalog.sources.spot_advisor import (
    SPOT_ADVISOR_AS_OF,
    SPOT_ADVISOR_SOURCE,
    load_spot_bands,
)
from app.catalog.view import CatalogView
from app.costing import HOURS_PER_DAY, HOURS_PER_MONTH, defaults, vector
from app.costing.sourced import Assumed, Cited, Note, Sourced

CHECKPOINT_INTERVAL_H = defaults.SPOT_CHECKPOINT_INTERVAL.number / 60.0
RESTART_H = defaults.SPOT_RESTART.number / 60.0
UNKNOWN_PER_HOUR = defaults.SPOT_PREEMPTION_PER_DAY.number / HOURS_PER_DAY


@dataclass(frozen=True)
class SpotDefaults:
    """Per offer of a view (aligned with its offers; 1 / NaN for offers that are not spot):
    ``overhead`` (billed hours per useful hour, Daly 2006), ``per_hour`` (interruptions per
    hour of running) and ``basis`` (AWS's band, or the unpublished-rate default)."""

    overhead: np.ndarray
    per_hour: np.ndarray
    basis: list[str | None]


def spot_defaults(view: CatalogView) -> SpotDefaults:
    """The view's :class:`SpotDefaults` (built on first use, kept with the view)."""
    return view.memoized("spot_defaults", lambda: _build(view))


def offer_overhead(view: CatalogView, offer_id: str) -> tuple[float, str | None]:
    """The default billed hours per useful hour of one offer (1.0 for an offer that is not
    spot) and what it rests on."""
    index: dict[str, int] = view.memoized(
        "offer_index", lambda: {o.id: i for i, o in enumerate(view.offers.offers)}
    )
    i = index.get(offer_id)
    if i is None:
        return 1.0, None
    d = spot_defaults(view)
    return float(d.overhead[i]), d.basis[i]


def _build(view: CatalogView) -> SpotDefaults:
    bands = load_spot_bands()
    offers = view.offers
    n = len(offers.offers)
    overhead, per_hour = np.ones(n), np.full(n, np.nan)
    basis: list[str | None] = [None] * n
    for i in np.flatnonzero(offers.spot):
        offer = offers.offers[int(i)]
        band = (
            bands.get((offer.region or "", offer.instance_type))
            if offer.provider == "aws"
            else None
        )
        if band is not None:
            label, per_month = band
            rate = per_month / HOURS_PER_MONTH
            basis[i] = (
                f"AWS Spot Instance Advisor: {label} interrupted a month ({offer.instance_type}, {offer.region})"
            )
        else:
            rate = UNKNOWN_PER_HOUR
            basis[i] = (
                f"{defaults.SPOT_PREEMPTION_PER_DAY.value:.0%} a day (no published band for "
                f"{offer.provider} {offer.instance_type})"
            )
        per_hour[i] = rate
        overhead[i] = vector.InterruptionRisk(rate, CHECKPOINT_INTERVAL_H, RESTART_H).time_factor
    return SpotDefaults(overhead, per_hour, basis)


def note_spot_defaults() -> Sourced[None]:
    """State the default interruption model in an answer's assumptions and sources."""
    notes: list[Note] = []
    notes.append(
        Assumed(
            "spot",
            f"checkpoint every {defaults.SPOT_CHECKPOINT_INTERVAL.shown()}, restart "
            f"{defaults.SPOT_RESTART.shown()}",
            "default: spot and interruptible offers re-do the work lost at each interruption "
            "(Daly 2006), at AWS Spot Instance Advisor's band for the instance type and region "
            "(the band's upper bound a month), else "
            + defaults.SPOT_PREEMPTION_PER_DAY.source_text()
            + "; "
            + defaults.SPOT_CHECKPOINT_INTERVAL.source_text()
            + "; give `spot` to state your own",
        )
    )
    notes.append(Cited("spot interruption bands", SPOT_ADVISOR_SOURCE, SPOT_ADVISOR_AS_OF))
    return Sourced(None, tuple(notes))
