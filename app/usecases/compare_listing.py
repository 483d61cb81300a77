"""Writes ranked compare options (``POST /v1/compare``): one :class:`CompareOption` per
option of the model's arrays, with its label, source, date, notes and figures rounded to 8
significant digits."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from app.catalog.view import CatalogView
from app.costing import vector
from app.costing.money import ExchangeRate
from app.models.compare import CompareOption
from app.steps.cloud_offer import offer_label
from app.steps.compare_speed import (
    GpuSpeed,
    Reference,
)
from app.steps.spot import spot_defaults
from app.steps.trail import in_currency, sig8
from app.usecases.compare_candidates import Candidates

MULTI_GPU_NOTE = (
    "runtime on N GPUs is the 1-GPU runtime / S(N), S the multi-GPU speed-up in "
    "`multi_gpu_scaling` (Amdahl's law; seed 001 reports 8x A100 at about 7x one A100); "
    "every GPU is billed"
)
LLM_MULTI_GPU_NOTE = (
    "LLM job on N GPUs: memory split evenly (ZeRO-3 / tensor parallel), time = FLOPs / (N x "
    "peak x MFU), the same MFU as one GPU (the Llama 3 paper's 0.38-0.43 is at 8-16k GPUs); "
    "every GPU is billed"
)

if TYPE_CHECKING:
    from app.models import Gpu


class Listing:
    """Writes ranked option ``j`` as a :class:`CompareOption` (8 significant digits)."""

    def __init__(
        self,
        snap: CatalogView,
        cand: Candidates,
        costs: vector.Costs,
        speed: GpuSpeed,
        ref: Reference,
        rate: ExchangeRate,
        others: np.ndarray,
    ) -> None:
        self.snap, self.cand, self.costs = snap, cand, costs
        self.speed, self.ref, self.rate, self.others = speed, ref, rate, others

    def _what(self, j: int, gpu: Gpu | None) -> dict[str, Any]:
        """Label, provider, instance, pricing, region, source and date of option ``j``."""
        cand, n = self.cand, int(self.cand.count[j])
        if cand.is_desk[j] and gpu is not None:  # a desktop build's GPU is in the catalog
            build = self.snap.builds.builds[int(cand.sel.bi[j - cand.n_o])]
            price = gpu.purchase_price()
            as_of = (price.as_of if price else None) or gpu.as_of
            return dict(
                label=f"desktop {n}x {gpu.name} in {build.barebone.id}",
                provider=None,
                instance_type=build.barebone.id,
                pricing_model=None,
                region=None,
                source=f"{build.barebone.source}; GPU: "
                f"{(price.source if price else None) or gpu.source}",
                as_of=as_of.isoformat() if as_of else None,
            )
        offer = self.snap.offers.offers[cand.sel.oi[j]]
        return dict(
            label=offer_label(offer),
            provider=str(offer.provider),
            instance_type=offer.instance_type,
            pricing_model=offer.pricing_model,
            commitment_term_months=offer.commitment_term_months,
            region=offer.region,
            source=offer.source,
            as_of=offer.as_of.isoformat() if offer.as_of else None,
        )

    def _notes(self, j: int, gi: int) -> str | None:
        cand = self.cand
        note = self.speed.note[gi] if cand.llm is None else cand.llm.notes[j]
        notes: list[str] = [note] if note else []
        if cand.count[j] > 1 and math.isfinite(cand.time_factor[j]):
            notes.append(MULTI_GPU_NOTE if cand.llm is None else LLM_MULTI_GPU_NOTE)
        if cand.overhead[j] > 1:
            basis = None
            if cand.risk is None and j < cand.n_o:
                basis = spot_defaults(self.snap).basis[int(cand.sel.oi[j])]
            notes.append(
                f"spot: {cand.overhead[j]:.4g} billed hours per useful hour (Daly 2006"
                + (f"; {basis})" if basis else ")")
            )
        term = cand.opts.commitment_term_months
        if term is not None and term[j] > 0:
            notes.append(
                f"committed use: billed every month of its {term[j]:.0f}-month term, used or "
                "not; the total covers the whole term"
            )
        return "; ".join(notes) or None

    def option(self, j: int, rank: int | None) -> CompareOption:
        """Option ``j`` at ``rank`` (None: listed unranked, e.g. does not fit)."""
        cand, costs, ref = self.cand, self.costs, self.ref
        gi = int(cand.g[j])
        gpu = self.snap.gpus[gi]
        tf = float(cand.time_factor[j])
        costed = math.isfinite(costs.total_cost_usd[j])
        nodes = int(cand.llm.nodes[j]) if cand.llm is not None else 1

        def val(a: np.ndarray) -> float | None:
            x = float(a[j])
            return sig8(x) if costed and math.isfinite(x) else None

        return CompareOption(
            rank=rank,
            id=cand.ident(self.snap, j),
            kind="desktop" if cand.is_desk[j] else "cloud",
            gpu_id=gpu.id,
            gpu_count=int(cand.count[j]),
            instances=int(costs.instances[j]) * nodes if costed else nodes,
            instances_per_run=nodes,
            gpu_memory_gb=gpu.memory_gb,
            gpus_needed=int(cand.llm.gpus_needed[j]) or None if cand.llm is not None else None,
            fits=None if cand.fits[j] < 0 else bool(cand.fits[j]),
            time_factor=sig8(tf) if math.isfinite(tf) else None,
            runtime_basis=self.speed.basis[gi],
            speed_error_band=_band(self.speed, gi),
            runtime_s=sig8(ref.run_hours * tf * 3600.0)
            if ref.run_hours is not None and math.isfinite(tf)
            else None,
            price_usd_per_hour=val(costs.effective_usd_per_hour),
            monthly_fee_usd=float(cand.opts.monthly_fee_usd[j]),
            upfront_usd=sig8(float(cand.opts.upfront_usd[j])),
            interruption_overhead=sig8(float(cand.overhead[j])),
            busy_hours_per_month=val(costs.busy_hours_per_month),
            cost_usd_per_month=val(costs.cost_usd_per_month),
            total_cost_usd=val(costs.total_cost_usd),
            total_cost_in_currency=in_currency(val(costs.total_cost_usd), self.rate),
            run_cost_usd=val(costs.run_cost_usd),
            cost_per_run_usd=val(costs.cost_per_run_usd),
            cost_per_batch_item_usd=val(costs.cost_per_batch_item_usd),
            energy_kwh=val(costs.energy_kwh),
            co2e_kg=val(costs.co2e_kg),
            carbon_intensity_g_per_kwh=float(cand.ci[j]),
            break_even_days=round(float(costs.break_even_days[j]), 2)
            if math.isfinite(costs.break_even_days[j])
            else None,
            other_regions=int(self.others[j]),
            note=self._notes(j, gi),
            **self._what(j, gpu),
        )


def _band(speed: GpuSpeed, gi: int) -> float | None:
    """GPU ``gi``'s speed error band, rounded, or None."""
    if speed.error_band is None or not math.isfinite(speed.error_band[gi]):
        return None
    return round(float(speed.error_band[gi]), 3)
