"""Cloud commitments a fleet plan may take on (``PlanRequest.commitments``): each a
committed-use catalog offer turned into a unit of capacity for the plan's model
(:class:`app.costing.plan.PlanBuild` with ``committed``): no purchase, its monthly bill (with
VAT when the plan adds it) owed for every month of its term, its GPUs serving the reference
GPU's work at their speed ratio. "Own the base, commit the middle, rent the peak"."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app import costing
from app.catalog.view import CatalogView
from app.costing.plan import PlanBuild
from app.costing.sourced import Assumed, Cited, Note, Priced, Sourced
from app.errors import InvalidRequest
from app.models.catalog_kinds import PricingModel
from app.models.plan import PlanRequest
from app.steps.cloud_offer import commitment_note, offer_label
from app.steps.speed import speed, speed_evidence
from app.steps.tax import Tax

if TYPE_CHECKING:
    from app.models import CloudOffer, Gpu


@dataclass(frozen=True)
class CommitmentCandidate:
    """A commitment the plan may take on: the catalog offer, its label, its GPU's speed
    relative to the reference and the model's view of one committed instance."""

    offer: CloudOffer
    label: str
    ratio: costing.SpeedRatio
    build: PlanBuild


def resolve_commitments(
    view: CatalogView,
    req: PlanRequest,
    ref: Gpu,
    cloud_offer: CloudOffer | None,
    max_u: float,
    tax: Tax,
) -> Sourced[tuple[CommitmentCandidate, ...]]:
    """The request's commitments (offer ids), else the committed-use offers of the plan's
    cloud machine in its region (stated, also when there are none). 404 for an unknown id,
    422 for an offer that is not a commitment."""
    notes: list[Note] = []
    offers, noted = _chosen(view, req, cloud_offer)
    notes += noted
    if not offers:
        return Sourced((), tuple(notes))
    evidence = speed_evidence(view)
    out = []
    for i, offer in enumerate(offers):
        gpu = view.gpu(offer.gpu_id) or ref
        ratio = speed(evidence, ref, 1, gpu, 1)
        name = f"commitments[{i}]"
        if gpu.id != ref.id:
            notes.append(
                Assumed(f"{name}.time_factor", ratio.time_factor, f"{ratio.basis}: {ratio.detail}")
            )
        notes.append(Cited(f"offer {offer.id}: monthly_fee_usd", offer.source, offer.as_of))
        notes.append(Priced(f"offer {offer.id}", offer.as_of))
        notes.append(Assumed(f"{name}.terms", commitment_note(offer), "catalog offer"))
        hours = offer.gpu_count * costing.COMMITTED_HOURS_PER_MONTH * max_u
        build = PlanBuild(
            id=name,
            upfront_usd=0.0,
            capacity_gpu_hours_per_month=hours / ratio.time_factor,
            cost_usd_per_gpu_hour=0.0,
            power_w=0.0,
            life_months=offer.commitment_term_months or 1,
            monthly_fee_usd=float(offer.monthly_fee_usd) * tax.factor,
            committed=True,
        )
        out.append(CommitmentCandidate(offer, offer_label(offer), ratio, build))
    notes.append(
        Assumed(
            "commitments.capacity",
            f"{costing.COMMITTED_HOURS_PER_MONTH:.0f} h x GPUs x max_utilization a month",
            "a committed instance serves the lab's jobs at most as an owned GPU does "
            "(`max_utilization`); a term must end within the horizon",
        )
    )
    return Sourced(tuple(out), tuple(notes))


def _chosen(
    view: CatalogView,
    req: PlanRequest,
    cloud_offer: CloudOffer | None,
) -> Sourced[list[CloudOffer]]:
    notes: list[Note] = []
    if req.commitments is not None:
        offers = [view.offer(i) for i in req.commitments]
        for i, offer in enumerate(offers):
            if offer.commitment_term_months is None:
                raise InvalidRequest(
                    f"commitments[{i}]: offer {offer.id} is {offer.pricing_model}, not a "
                    f"commitment: list {PricingModel.committed_use} offers (GET /v1/cloud-offers?"
                    f"pricing_model={PricingModel.committed_use})"
                )
        notes.append(Assumed("commitments", [o.id for o in offers], "requested"))
        return Sourced(offers, tuple(notes))
    if cloud_offer is None:
        return Sourced([], tuple(notes))
    same = sorted(
        (
            o
            for o in view.offers.offers
            if o.commitment_term_months
            and (o.provider, o.instance_type, o.region)
            == (cloud_offer.provider, cloud_offer.instance_type, cloud_offer.region)
        ),
        key=lambda o: o.commitment_term_months or 0,
    )
    notes.append(
        Assumed(
            "commitments",
            [o.id for o in same],
            "default: the committed-use offers of the cloud's machine in its region"
            + ("" if same else f" (the catalog has none for {offer_label(cloud_offer)})")
            + "; list others in `commitments`, or [] for none",
        )
    )
    return Sourced(same, tuple(notes))
