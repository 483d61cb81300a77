"""Where an LLM job's energy is drawn and what the grid emits for it: the request region's
carbon intensity (else the default region's, as ``POST /v1/carbon``), a datacenter's PUE for
a rented GPU (the region's, else the catalog's unknown-datacenter PUE) and 1.0 for an owned
desktop, and each GPU's power while the job runs (:data:`app.costing.defaults.LLM_GPU_LOAD`
x TDP, plus its host: a datacenter GPU's server share, :mod:`app.steps.datacenter`, else the
default base power). Every choice is stated once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.catalog.sources.reference import PUE_UNKNOWN
from app.catalog.view import CatalogView
from app.costing import defaults
from app.costing.sourced import Assumed, Cited, Note, Sourced
from app.settings import Settings
from app.steps.datacenter import is_datacenter, server_share
from app.steps.site import carbon_region

if TYPE_CHECKING:
    from app.models import Gpu, Region


@dataclass(frozen=True)
class LlmSite:
    """The grid's ``carbon_intensity_g_per_kwh`` and a rented GPU's datacenter ``pue``."""

    carbon_intensity_g_per_kwh: float
    pue: float


def resolve_site(view: CatalogView, region: Region | None, settings: Settings) -> Sourced[LlmSite]:
    """The grid and datacenter an LLM job's energy is counted at, stated."""
    notes: list[Note] = []
    grid, noted = carbon_region(view, region, settings)
    notes += noted
    if region is not None and region.pue is not None:
        pue = region.pue
        notes.append(
            Cited(f"region {region.id}: pue", region.pue_source or region.source, region.as_of)
        )
    else:
        unknown = view.reference_value(PUE_UNKNOWN)
        pue = unknown.value
        notes.append(
            Assumed(
                "pue",
                pue,
                "a rented GPU's datacenter, in a region without a published PUE: "
                f"{unknown.source}; an owned desktop: 1.0 (no datacenter overhead)",
            )
        )
    notes.append(
        Assumed(
            "gpu_power_w",
            f"{defaults.LLM_GPU_LOAD.number:g} x each GPU's TDP while the job runs",
            defaults.LLM_GPU_LOAD.source_text(),
        )
    )
    notes.append(Assumed("rented host power", RENTED_HOST_RULE, RENTED_HOST_SOURCE))
    return Sourced(LlmSite(grid.carbon_intensity_g_per_kwh, pue), tuple(notes))


RENTED_HOST_RULE = (
    "a rented datacenter GPU's share of its server (CPUs, memory, fans, network; the DGX of "
    "its architecture's maximum power less its GPUs, per W of GPU TDP); another rented GPU's "
    f"host draws the default base power ({defaults.BASE_POWER.number:g} W)"
)
RENTED_HOST_SOURCE = (
    "NVIDIA DGX datasheets (app/data/curated/server_power.csv, as POST /v1/carbon uses); base "
    f"power {defaults.BASE_POWER.source_text()}"
)


@dataclass(frozen=True)
class RentedPower:
    """Power of rented GPUs while a job runs, W, no PUE: ``gpus_w`` at full load (each GPU at
    :data:`~app.costing.defaults.LLM_GPU_LOAD` x TDP; a decode-bound share of the run scales
    it down) and ``host_w``, their server's share, which runs whatever the GPUs do."""

    gpus_w: float = 0.0
    host_w: float = 0.0

    def at(self, load: float) -> float:
        """W with the GPUs at ``load`` (1: full load) of their full-load power."""
        return self.gpus_w * load + self.host_w


def rented_power_w(view: CatalogView, gpu: Gpu, count: int) -> RentedPower:
    """Power of ``count`` rented ``gpu``s and their host while the job runs (no PUE)."""
    gpus_w = count * defaults.LLM_GPU_LOAD.number * (gpu.tdp_w or 0.0)
    if is_datacenter(gpu):
        return RentedPower(gpus_w, server_share(view, gpu).ratio * (gpu.tdp_w or 0.0) * count)
    return RentedPower(gpus_w, defaults.BASE_POWER.number)
