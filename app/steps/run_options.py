"""The options a run is costed on when the question names no single one: a run-cost
request's ``options`` (``{"offer_id": ...}`` or ``{"desktop": {...}}`` items), chosen by
one rule per case and stated as an :class:`~app.costing.sourced.Assumed` note.

* :func:`distinct_offers`: the offers a cloud side matched, one region per instance type.
* :func:`gpu_options`: a GPU's cheapest on-demand offer per provider, and a desktop with it.
* :func:`seed_options`: seed 004's Paperspace offers, the workload benchmarks' own.

Errors: :class:`~app.errors.NotFound` (404) when a GPU has neither an offer nor a price.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.catalog.queries import find_offers
from app.catalog.view import CatalogView
from app.costing.offers import newest_of_each
from app.costing.sourced import Assumed, Note, Sourced
from app.errors import NotFound
from app.steps.gpu_choice import hgx_count

if TYPE_CHECKING:
    from app.models import CloudOffer, Gpu


# How many options an answer lists (a chat reply or a default option list).
MAX_OPTIONS = 5
# Seed 004 (Paperspace, "Best GPU for deep learning", 2022) priced its benchmarks on the
# Paperspace offers of that year: the catalog's `paperspace-*-2022` rows.
SEED_004_SUFFIX = "-2022"

Option = dict[str, Any]


def distinct_offers(found: Sequence[CloudOffer]) -> Sourced[list[Option]]:
    """The first :data:`MAX_OPTIONS` of ``found`` (cheapest per GPU-hour first), one region
    per instance type."""
    distinct: dict[tuple[str, str], CloudOffer] = {}
    for o in found:
        distinct.setdefault((o.provider, o.instance_type), o)
    options: list[Option] = [{"offer_id": o.id} for o in list(distinct.values())[:MAX_OPTIONS]]
    note = Assumed(
        "options",
        [o["offer_id"] for o in options],
        f"the {len(options)} cheapest per GPU-hour of {len(found)} matching offers (one "
        "region per instance type)",
    )
    return Sourced(options, (note,))


def gpu_options(view: CatalogView, gpu: Gpu, count: int) -> Sourced[list[Option]]:
    """``count`` x ``gpu`` costed on each provider's cheapest on-demand offer of it at its
    newest prices (:func:`~app.costing.offers.newest_of_each`; free
    plans such as Colab Free left out: GPU, hours and sessions not guaranteed), up to
    :data:`MAX_OPTIONS`, and on a desktop with it when it can be bought in that count (SXM
    modules as an HGX board). Raises :class:`NotFound` when there is neither."""
    found = find_offers(view, gpu_ids=(gpu.id,), gpu_count=count, pricing_model="on_demand")
    cheapest: dict[str, CloudOffer] = {}  # per provider; offers come cheapest first
    for offer in newest_of_each(found):
        if offer.price_usd_per_hour == 0 and offer.monthly_fee_usd == 0:
            continue
        cheapest.setdefault(offer.provider, offer)
    options: list[Option] = [{"offer_id": o.id} for o in list(cheapest.values())[:MAX_OPTIONS]]
    notes: list[Note] = []
    if gpu.purchase_price() is not None and view.cheapest_barebone(count, gpu) is not None:
        n, noted = hgx_count(gpu, count)
        notes += noted
        options.append({"desktop": {"gpu": gpu.id, "gpu_count": n}})
    if not options:
        raise NotFound(f"no offer or desktop price for {gpu.id} in the catalog")
    notes.append(
        Assumed(
            "options",
            [o.get("offer_id", "desktop") for o in options],
            f"the cheapest on-demand offer of this GPU per provider at its newest prices (up to "
            f"{MAX_OPTIONS}; say `spot` for spot), and a desktop with it when the catalog "
            "prices the card (new or used)",
        )
    )
    return Sourced(options, tuple(notes))


def seed_options(view: CatalogView) -> Sourced[list[Option]]:
    """Seed 004's Paperspace offers (the options its benchmarks were priced on)."""
    found = [
        o for o in find_offers(view, gpu_ids=None, provider="paperspace")
        if o.id.endswith(SEED_004_SUFFIX)
    ]  # fmt: skip
    note = Assumed(
        "options",
        len(found),
        "seed 004's Paperspace offers (Paperspace, 'Best GPU for deep learning', 2022)",
    )
    return Sourced([{"offer_id": o.id} for o in found], (note,))
