"""SkyPilot's Slurm pricing (``POST /v1/owned-rates/skypilot-slurm``): the lab's machines by
cluster and partition priced per GPU-hour with the owned-rates use case, as the rows of
SkyPilot's ``~/.sky/catalogs/v8/slurm/pricing.csv``.

That file's schema (skypilot-org/skypilot-catalog ``catalogs/v8/slurm/README.md`` and
``pricing.csv``, commit 81d02c61, read 2026-11-27): ``Region`` (the cluster; empty matches
any), ``Zone`` (the partition; empty matches any), ``PricePerVCPU``, ``PricePerMemoryGB``,
``AcceleratorName`` and ``PricePerAccelerator``, USD per hour; the most specific row wins,
and the shipped file is one wildcard row of zeros."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.catalog.view import CatalogView
from app.costing.errors import CostingError
from app.models.chargeback import SlurmPricingRequest
from app.models.owned_rates import OwnedRatesRequest
from app.settings import Settings
from app.steps.lab_machines import lab_machines
from app.usecases import owned_rates

COLUMNS = (
    "Region",
    "Zone",
    "PricePerVCPU",
    "PricePerMemoryGB",
    "AcceleratorName",
    "PricePerAccelerator",
)
# SkyPilot's shipped row: anything no row of ours matches stays at $0.00, as before.
WILDCARD = ("", "", "0.0", "0.0", "", "0.0")


@dataclass(frozen=True)
class SlurmPrice:
    """One row: the cluster (Region), the partition (Zone), SkyPilot's name of its GPU and
    the all-in owned rate, USD per GPU-hour (vCPUs and memory are in it: priced 0); with the
    catalog GPU (None: given by power only) and the site label, for the metrics gauge."""

    cluster: str
    partition: str
    accelerator_name: str
    price_usd_per_gpu_hour: float
    gpu_id: str | None
    site: str | None


def slurm_prices(
    view: CatalogView, req: SlurmPricingRequest, settings: Settings
) -> list[SlurmPrice]:
    """Each partition's owned GPU-hour rate (``POST /v1/owned-rates``'s, with its defaults
    and errors; at its machines' own ``region`` when they name one, else the request's) as
    a Slurm pricing row."""
    machines = lab_machines(req.machines, settings).value
    body = req.model_dump(exclude_unset=True, exclude={"machines"})
    prices = []
    for i, m in enumerate(machines):
        one = {**body, "machines": [m.machine.model_dump(exclude_unset=True)]}
        if m.region is not None:
            one["region"] = m.region
        try:
            scenario = owned_rates.resolve(view, OwnedRatesRequest.model_validate(one), settings)
        except CostingError as exc:  # named as the request's entry, not this call's only one
            if exc.field and exc.field.startswith("machines[0]"):
                exc.field = f"machines[{i}]{exc.field.removeprefix('machines[0]')}"
            raise
        [rate] = owned_rates.compose(scenario).machines
        [priced] = scenario.machines
        prices.append(
            SlurmPrice(
                m.cluster or "",
                m.partition,
                priced.accelerator_name,
                rate.cost_usd_per_gpu_hour,
                rate.gpu_id,
                m.site,
            )
        )
    return prices


def pricing_rows(prices: Sequence[SlurmPrice]) -> list[tuple[str, ...]]:
    """The file's rows, header first and SkyPilot's wildcard row last."""
    rows = [
        (
            p.cluster,
            p.partition,
            "0.0",
            "0.0",
            p.accelerator_name,
            f"{p.price_usd_per_gpu_hour:.4f}",
        )
        for p in prices
    ]
    return [COLUMNS, *rows, WILDCARD]
