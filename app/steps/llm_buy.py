"""Buy or rent for a language-model job: which estimate rows a desktop and a rental are
compared on, by rules that hold for any caller (chat today).

* **The box** holds the job: its GPUs fit it (``fits``); of those the one named, else the one
  that runs the job cheapest (owned cost per run).
* **The rental** holds the job and is rented as it is sold: an instance of ``k`` GPUs is
  paid whole (``ceil(gpus / k)`` instances for the run's hours), so one GPU of an 8-GPU
  node costs the node; the cheapest such run wins.

Each choice is stated as an :class:`~app.costing.sourced.Assumed` note.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from app.catalog.view import CatalogView
from app.costing.sourced import Assumed, Sourced
from app.models.llm import LlmGpuEstimate


@dataclass(frozen=True)
class Rental:
    """A rental of the job: the estimate ``row``, ``instances`` of its offer's instance
    (``gpus_per_instance`` GPUs each) and what a run costs so, USD."""

    row: LlmGpuEstimate
    instances: int
    gpus_per_instance: int
    cost_usd: float


@dataclass(frozen=True)
class BuyOrRent:
    """The box (an estimate row with an owned desktop) and the rental it is compared with."""

    box: LlmGpuEstimate
    rental: Rental


def _rented_whole(view: CatalogView, row: LlmGpuEstimate) -> Rental | None:
    """``row``'s rental priced as whole instances of its offer (None without one)."""
    if row.cloud is None or row.runtime_s is None:
        return None
    offer = view.offer(row.cloud.offer_id)
    gpus = row.gpus_priced or 1
    instances = math.ceil(gpus / offer.gpu_count)
    cost = instances * float(offer.price_usd_per_hour) * row.runtime_s / 3600
    return Rental(row, instances, offer.gpu_count, cost)


def buy_or_rent(
    view: CatalogView, rows: Sequence[LlmGpuEstimate], named: Sequence[str] = ()
) -> Sourced[BuyOrRent | None]:
    """The box and the rental of a buy-or-rent question over the estimate ``rows`` (the
    GPUs ``named`` for the box, if any); None when no box or no rental holds the job."""
    boxes = [
        e for e in rows
        if e.owned and e.runtime_s and e.fits and (not named or e.gpu_id in named)
    ]  # fmt: skip
    rentals = [r for e in rows if e.fits and (r := _rented_whole(view, e))]
    if not boxes or not rentals:
        return Sourced(None, ())
    box = boxes[0] if named else min(boxes, key=lambda e: e.owned.cost_usd)  # type: ignore[union-attr]
    rent = min(rentals, key=lambda r: r.cost_usd)
    notes = (
        Assumed(
            "desktop",
            f"{box.gpus_priced}x {box.gpu_id}",
            "the GPUs named"
            if named
            else "of the desktops whose GPUs hold the job, the one "
            "that runs it cheapest (purchase spread over its life + electricity)",
        ),
        Assumed(
            "rental",
            rent.row.cloud.offer_id if rent.row.cloud else None,
            "of the rentals that hold the job, the cheapest run paid as the instances are "
            "sold (a k-GPU instance is rented whole)",
        ),
    )
    return Sourced(BuyOrRent(box, rent), notes)
