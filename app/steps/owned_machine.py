"""An owned machine of a lab (a desktop or server build, how many, how busy, its yearly
overhead), resolved with the desktop step: what owned rates and chargeback price per
GPU-hour."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from app import costing
from app.catalog.sources.skypilot_names import kubernetes_accelerator_name
from app.catalog.view import CatalogView
from app.costing.money import ExchangeRate
from app.costing.sourced import Note, Sourced
from app.models.owned_rates import OwnedMachine
from app.steps.currency import given_usd
from app.steps.desktop import ResolvedDesktop, resolve_desktop

if TYPE_CHECKING:
    from app.models import Gpu, Region


@dataclass(frozen=True)
class MachineScenario:
    """One build: the desktop as the model takes it (its ``lifetime_years`` the holding
    period, ``resale_usd`` its resale), its catalog GPU, how many, how busy, the yearly
    overhead (USD) and the name SkyPilot gives its GPU."""

    desk: ResolvedDesktop
    owned: costing.Desktop
    gpu: Gpu | None
    count: int
    usage: costing.Usage
    overhead_usd_per_year: float
    accelerator_name: str


def resolve_machine(
    view: CatalogView,
    spec: OwnedMachine,
    prefix: str,
    rate: ExchangeRate,
    default_usage: costing.Usage | None,
    region: Region | None,
) -> Sourced[MachineScenario]:
    """Machine ``spec`` (at ``prefix`` in the request, ``machines[0]``) resolved: its desktop and resale, usage (its own
    utilization, else ``default_usage``'s), yearly overhead in USD and SkyPilot name. Raises
    what :func:`~app.steps.desktop.resolve_desktop` raises."""
    notes: list[Note] = []
    desk, noted = resolve_desktop(view, spec, prefix=prefix, rate=rate, region=region)
    notes += noted
    owned = desk.desktop
    if desk.resale is not None:
        owned = replace(owned, resale_usd=desk.resale.value_usd, lifetime_years=desk.horizon_years)
    utilization = spec.utilization
    if utilization is None:
        assert default_usage is not None  # resolved whenever a machine leaves it out
        utilization = default_usage.utilization
    usage = costing.Usage(utilization, spec.idle_on_fraction or 0.0)
    overhead, noted = given_usd(
        spec.overhead_usd_per_year,
        spec.overhead_per_year,
        rate,
        f"{prefix}.overhead_usd_per_year",
    )
    notes += noted
    name = spec.accelerator_name
    if name is None:
        label = desk.gpu.name if desk.gpu else f"{owned.gpu_power_w:g} W GPU"
        name = kubernetes_accelerator_name(label)
    return Sourced(
        MachineScenario(desk, owned, desk.gpu, spec.count, usage, overhead or 0.0, name),
        tuple(notes),
    )
