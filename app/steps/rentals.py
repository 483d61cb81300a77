"""The cheapest way to rent the GPUs a question asks for, per provider, priced by plain
arithmetic (no speed model: the GPUs asked for are the GPUs rented).

* **N GPUs for a period**: an instance of N GPUs, else ``ceil(N / k)`` of a k-GPU instance,
  each billed the period's busy hours: instance price per hour x instances x hours.
* **X GPU-hours**: the instance's price per GPU-hour (price / GPUs) x X, on any size.

A spot or interruptible offer's billed hours carry its default interruption overhead
(:func:`app.steps.spot.offer_overhead`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.catalog.view import CatalogView
from app.costing import offers
from app.costing.sourced import Assumed, Sourced
from app.steps.run_options import MAX_OPTIONS
from app.steps.spot import offer_overhead

if TYPE_CHECKING:
    from app.models import CloudOffer


@dataclass(frozen=True)
class Rental:
    """One way to rent the GPUs asked for: ``instances`` of ``offer``, each billed ``hours``
    (h), ``cost_usd`` in all (USD)."""

    offer: CloudOffer
    instances: int
    hours: float
    cost_usd: float


def cheapest_rentals(
    view: CatalogView,
    found: Sequence[CloudOffer],
    gpus: int,
    gpu_hours: float | None,
    hours: float,
    *,
    limit: int = MAX_OPTIONS,
) -> Sourced[list[Rental]]:
    """Of the offers ``found``, each provider's cheapest rental (one region each), the
    ``limit`` cheapest first: ``gpus`` GPUs for ``hours`` h each, or ``gpu_hours`` GPU-hours
    when given."""
    best: dict[str, Rental] = {}
    for o in found:
        price = float(o.price_usd_per_hour)
        extra, _ = offer_overhead(view, o.id)
        if gpu_hours is not None:  # billed as GPU-hours on any instance size
            billed = gpu_hours * extra
            r = Rental(o, 1, billed / o.gpu_count, offers.price_per_gpu_hour(o) * billed)
        else:
            k = math.ceil(gpus / o.gpu_count)
            r = Rental(o, k, hours * extra, price * k * hours * extra)
        if o.provider not in best or r.cost_usd < best[o.provider].cost_usd:
            best[o.provider] = r
    ranked = sorted(best.values(), key=lambda r: (r.cost_usd, r.offer.id))[:limit]
    note = Assumed(
        "offers",
        [r.offer.id for r in ranked],
        "each provider's cheapest way to rent the GPUs asked for (an instance of that many "
        "GPUs, else several smaller ones); billed hours x price, no speed model",
    )
    return Sourced(ranked, (note,))
