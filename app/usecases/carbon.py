"""Energy and emissions (``POST /v1/carbon``): :func:`resolve` turns the request into a
:class:`CarbonScenario` (every input concrete, every default stated once), :func:`compose`
computes operational and embodied emissions from it with the pure model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app import costing
from app.catalog.sources.reference import PUE_UNKNOWN
from app.catalog.view import CatalogView
from app.costing import ownership as own
from app.costing.sourced import Assumed, Cited, Note, Sourced
from app.models.carbon import CarbonRequest, CarbonResult, Hardware
from app.settings import Settings
from app.steps.cloud_offer import gpu_or_none
from app.steps.datacenter import is_datacenter, rented_host_power_w
from app.steps.demand import resolve_usage
from app.steps.embodied import cloud_embodied, desktop_embodied
from app.steps.site import carbon_region, resolve_region
from app.steps.trail import (
    DEFAULT_UTILIZATION_PROFILE,
    LIFETIME_SOURCE,
    Provenance,
    embodied_model,
    price_rule,
    sig8,
)

if TYPE_CHECKING:
    from app.models import Gpu, Region


@dataclass(frozen=True)
class CarbonScenario:
    """A carbon request with every input explicit: the GPU (None when only its power is
    given), ``gpu_count``, the machine's busy power ``power_w`` (W: GPUs x power + base),
    ``busy_hours`` (h), datacenter ``pue``, grid ``carbon_intensity_g_per_kwh``, whether the
    hardware is ``owned`` or ``rented``, the hardware's embodied carbon and the share of it
    the period carries (0..1), and the notes of assumptions and sources."""

    gpu: Gpu | None
    gpu_count: int
    power_w: float
    busy_hours: float
    pue: float
    carbon_intensity_g_per_kwh: float
    hardware: Hardware
    embodied: own.Embodied
    embodied_share: float
    provenance: Provenance


def compute_carbon(view: CatalogView, req: CarbonRequest, settings: Settings) -> CarbonResult:
    """Operational emissions (energy x PUE x grid intensity) and the share of the hardware's
    manufacturing emissions the period carries; see :class:`CarbonResult`."""
    return compose(resolve(view, req, settings))


def resolve(view: CatalogView, req: CarbonRequest, settings: Settings) -> CarbonScenario:
    """The scenario of ``req`` over ``view``: 404 for unknown GPUs, regions or profiles."""
    notes: list[Note] = []
    gpu, noted = gpu_or_none(view, req.gpu)
    notes += noted
    if req.gpu_power_w is not None:
        gpu_power = req.gpu_power_w
    else:
        gpu_power = gpu.tdp_w
        notes.append(Assumed("gpu_power_w", gpu_power, f"TDP of {gpu.id}"))
    utilization: float | None = None
    if req.hours is not None:
        busy = req.hours
    else:
        usage, noted = resolve_usage(view, req)
        notes += noted
        utilization = usage.utilization
        busy = req.days * usage.busy_hours_per_day
    region = resolve_region(view, req.region)
    if req.carbon_intensity_g_per_kwh is not None:
        ci = req.carbon_intensity_g_per_kwh
    else:
        grid, noted = carbon_region(view, region, settings)
        notes += noted
        ci = grid.carbon_intensity_g_per_kwh
    pue, noted = _pue(view, req, region)
    notes += noted
    (total, share), noted = _embodied(view, req, gpu, busy, utilization)
    notes += noted
    rented = req.hardware == Hardware.rented
    host_w = req.base_power_w
    if (
        rented
        and gpu is not None
        and is_datacenter(gpu)
        and "base_power_w" not in req.model_fields_set
    ):
        host_w, noted = rented_host_power_w(view, gpu, req.gpu_count)
        notes += noted
    return CarbonScenario(
        gpu=gpu,
        gpu_count=req.gpu_count,
        power_w=req.gpu_count * gpu_power + host_w,
        busy_hours=busy,
        pue=pue,
        carbon_intensity_g_per_kwh=ci,
        hardware=req.hardware or Hardware.owned,
        embodied=total,
        embodied_share=share,
        provenance=Provenance(tuple(notes), price_rule(view, settings)),
    )


def compose(s: CarbonScenario) -> CarbonResult:
    """The answer to scenario ``s``, from it alone."""
    energy = costing.energy_kwh(s.power_w, s.busy_hours, s.pue)
    operational = costing.co2e_kg(energy, s.carbon_intensity_g_per_kwh)
    embodied = s.embodied.scaled(s.embodied_share)
    return CarbonResult(
        gpu_id=s.gpu.id if s.gpu else None,
        gpu_count=s.gpu_count,
        power_w=s.power_w,
        busy_hours=sig8(s.busy_hours),
        pue=s.pue,
        carbon_intensity_g_per_kwh=s.carbon_intensity_g_per_kwh,
        energy_kwh=sig8(energy),
        co2e_kg=sig8(operational),
        operational_co2e_kg=sig8(operational),
        hardware=s.hardware,
        embodied_share=sig8(s.embodied_share),
        embodied=embodied_model(embodied),
        hardware_embodied=embodied_model(s.embodied),
        total_co2e_kg=sig8(operational + embodied.co2e_kg),
        **s.provenance.fields(),
    )


def _pue(
    view: CatalogView,
    req: CarbonRequest,
    region: Region | None,
) -> Sourced[float]:
    """Datacenter overhead: given, else the region's, else for rented hardware the catalog's
    unknown-datacenter PUE, else 1.0 (an owned desktop in an office)."""
    notes: list[Note] = []
    if req.pue is not None:
        return Sourced(req.pue, tuple(notes))
    if region is not None and region.pue is not None:
        notes.append(
            Cited(f"region {region.id}: pue", region.pue_source or region.source, region.as_of)
        )
        return Sourced(region.pue, tuple(notes))
    if req.hardware == Hardware.rented:
        unknown = view.reference_value(PUE_UNKNOWN)
        notes.append(
            Assumed(
                "pue",
                unknown.value,
                f"default for rented hardware in a region without a published PUE: {unknown.source}",
            )
        )
        return Sourced(unknown.value, tuple(notes))
    notes.append(Assumed("pue", 1.0, "default: no datacenter overhead (a desktop in an office)"))
    return Sourced(1.0, tuple(notes))


def _embodied(
    view: CatalogView,
    req: CarbonRequest,
    gpu: Gpu | None,
    busy: float,
    utilization: float | None,
) -> Sourced[tuple[own.Embodied, float]]:
    """The hardware's embodied carbon (kg CO2e) and the share ``busy`` hours carry: an owned
    machine carries all of it over its life (per day owned, or per busy hour at its
    utilization); a rented GPU spreads it over every hour of its life."""
    notes: list[Note] = []
    hardware = req.hardware or "owned"
    if hardware == "owned":
        total, noted = desktop_embodied(view, req.gpu_count, gpu)
        notes += noted
        life = req.lifetime_years or costing.DEFAULT_LIFETIME_YEARS
        life_source = f"default: {LIFETIME_SOURCE}"
        if req.days is not None:
            share = own.owned_share_of_period(req.days, life)
            how = f"{req.days:g} days / ({life:g} y x 365 d), capped at 1"
        else:
            if utilization is None:
                utilization = view.profile(DEFAULT_UTILIZATION_PROFILE).utilization
                notes.append(
                    Assumed(
                        "utilization",
                        utilization,
                        f"for the embodied share of {req.hours:g} busy hours: default profile "
                        f"'{DEFAULT_UTILIZATION_PROFILE}'",
                    )
                )
            share = min(1.0, own.owned_share_of_run(busy, life, utilization))
            how = f"{busy:g} h / ({life:g} y x 8760 h x {utilization:g}), capped at 1"
        notes.append(
            Assumed(
                "embodied_share",
                sig8(share),
                f"owned: the machine (barebone + {req.gpu_count} GPU(s)) carries all its "
                f"manufacturing emissions over its life; {how}",
            )
        )
    else:
        (total, default_life), noted = cloud_embodied(view, req.gpu_count, gpu)
        notes += noted
        life = req.lifetime_years or default_life
        life_source = f"default: EcoDiag's server life, {default_life:g} years"
        share = min(1.0, own.rented_share(busy, life))
        notes.append(
            Assumed(
                "embodied_share",
                sig8(share),
                f"rented: {busy:g} busy hours / ({life:g} y x 8760 h), capped at 1",
            )
        )
    if req.lifetime_years is None:
        notes.append(Assumed("lifetime_years", life, life_source))
    return Sourced((total, share), tuple(notes))
