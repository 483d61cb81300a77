"""Chargeback (``POST /v1/chargeback``): :func:`resolve` reads the usage export
(:mod:`app.steps.sacct`, or OpenCost's allocations: :mod:`app.steps.opencost`), measures
each partition's utilization over the period, and resolves its machines with the owned-rates step at that utilization, the comparable
on-demand offer of their GPU and the site's electricity and grid; :func:`compose` charges
each job's GPU-hours with :func:`app.costing.chargeback.charge`."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from app import costing
from app.catalog.view import CatalogView
from app.costing import chargeback as cb
from app.costing import floors
from app.costing.errors import InvalidInput
from app.costing.money import ExchangeRate
from app.costing.sourced import Assumed, Caveat, Cited, Note, Priced
from app.models.chargeback import (
    AccountCharge,
    ChargebackRequest,
    ChargebackResult,
    ChargeFigures,
    MachineUse,
    Unread,
    UsageFormat,
    UserCharge,
)
from app.settings import Settings
from app.steps.cloud_offer import comparable_offers_of
from app.steps.currency import resolve_currency
from app.steps.lab_machines import lab_machines
from app.steps.opencost import read_opencost
from app.steps.owned_machine import MachineScenario, resolve_machine
from app.steps.sacct import ReadExport, read_sacct
from app.steps.site import Site, resolve_site
from app.steps.trail import Provenance, currency_rate, price_rule, sig8

CHARGE_RULE = (
    "fully loaded: each partition's machines cost (purchase net of resale over the holding "
    "years, electricity, overhead) spread over the GPU-hours its jobs used in the period, "
    "so its idle GPUs are charged to the jobs that ran (the owned rate at the period's "
    "measured utilization)"
)
ENERGY_RULE = (
    "GPU-hours x the machine's busy wall power per GPU: (GPUs x GPU power + base power) / "
    "PSU efficiency / GPUs; idle power is not charged to jobs"
)

if TYPE_CHECKING:
    from app.models import CloudOffer

RENTED_RULE = "GPU-hours x the comparable offer's price / its GPUs"


@dataclass(frozen=True)
class PartitionScenario:
    """One partition's machines at the period's measured utilization, and what renting a
    GPU of theirs costs (None: no comparable offer)."""

    partition: str
    cluster: str | None
    site_label: str | None
    site: Site
    machine: MachineScenario
    used_gpu_hours: float
    offer: CloudOffer | None


@dataclass(frozen=True)
class ChargebackScenario:
    """The export read, the period (aware), its time zone, each partition resolved (with its
    site: electricity, grid), the request's site, the answer's currency and what it rests
    on."""

    export: ReadExport
    period: cb.Period
    time_zone: str
    partitions: list[PartitionScenario]
    unmatched: dict[str, int]
    budgets_usd: dict[str, float]
    site: Site
    rate: ExchangeRate
    provenance: Provenance


def _zone(req: ChargebackRequest, settings: Settings) -> tuple[str, ZoneInfo, Note]:
    name = req.time_zone or settings.cluster_time_zone
    try:
        zone = ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidInput(
            f"unknown time zone {name!r} (an IANA name)", field="time_zone"
        ) from None
    how = "given" if req.time_zone else "setting GPUCOST_CLUSTER_TIME_ZONE (default UTC)"
    return name, zone, Assumed("time_zone", name, f"the export's times read in it; {how}")


def _machine_site(
    view: CatalogView,
    req: ChargebackRequest,
    settings: Settings,
    rate: ExchangeRate,
    region: str | None,
    i: int,
) -> tuple[Site | None, list[Note]]:
    """The site of machine entry ``i`` when it names its own ``region`` (None otherwise: the
    request's), its notes named under ``machines[i]``. An electricity price given in the
    request still applies (the caller's override)."""
    if region is None:
        return None, []
    site, noted = resolve_site(view, req.model_copy(update={"region": region}), settings, rate)
    return site, [_under(f"machines[{i}]", n) for n in noted]


def _under(prefix: str, note: Note) -> Note:
    """``note`` with the name it is about put under ``prefix``."""
    if isinstance(note, Assumed):
        return note._replace(name=f"{prefix}.{note.name}")
    if isinstance(note, Cited | Priced):
        return note._replace(what=f"{prefix}: {note.what}")
    return note


def _read_usage(req: ChargebackRequest, zone: ZoneInfo) -> ReadExport:
    """The export's jobs, by its format (422 for text that is not in it)."""
    if req.usage.format is UsageFormat.opencost:
        return read_opencost(req.usage.text, req.usage.user_label)
    return read_sacct(req.usage.text, zone)


def resolve(view: CatalogView, req: ChargebackRequest, settings: Settings) -> ChargebackScenario:
    """The scenario of ``req`` over ``view``: 404 for an unknown GPU, barebone or region,
    422 for an unknown time zone, a header without a needed column or a machine the model
    cannot price."""
    notes: list[Note] = []
    rate, noted = resolve_currency(view, req)
    notes += noted
    site, noted = resolve_site(view, req, settings, rate)
    notes += noted
    zone_name, zone, note = _zone(req, settings)
    notes.append(note)
    period = cb.Period(
        dt.datetime.combine(req.period.start, dt.time(), zone).astimezone(dt.UTC),
        dt.datetime.combine(req.period.end, dt.time(), zone).astimezone(dt.UTC),
    )
    machines, noted = lab_machines(req.machines, settings)
    notes += noted
    export = _read_usage(req, zone)
    used = cb.used_gpu_hours(export.jobs, period)
    partitions = []
    for i, placed in enumerate(machines):
        spec = placed.machine.model_copy(update={"utilization": None})  # measured instead
        gpus = spec.gpu_count * spec.count
        hours = used.get(placed.partition, 0.0)
        measured = cb.measured_utilization(hours, gpus, period)
        usage = costing.Usage(max(measured, floors.SHARE.value))
        own_site, site_notes = _machine_site(view, req, settings, rate, placed.region, i)
        notes += site_notes
        where = own_site or site
        machine, noted = resolve_machine(
            view, spec, f"machines[{i}].machine", rate, usage, where.region
        )
        notes += noted
        notes.append(
            Assumed(
                f"machines[{i}].machine.utilization",
                sig8(measured),
                f"measured: {hours:.6g} GPU-hours used / ({gpus} GPUs x {period.hours:g} h)",
            )
        )
        partitions.append(
            PartitionScenario(
                placed.partition, placed.cluster, placed.site, where, machine, hours, None
            )
        )
    partitions, offered = _offers(view, partitions)
    notes += offered
    unmatched = _unmatched(export, period, {p.partition for p in partitions})
    notes += _caveats(export, unmatched)
    notes += [
        Assumed("owned_cost_usd", "owned rate at measured utilization", CHARGE_RULE),
        Assumed("energy_kwh", "busy wall power per GPU", ENERGY_RULE),
        Assumed("rented_cost_usd", "comparable on-demand offer", RENTED_RULE),
    ]
    provenance = Provenance(tuple(notes), price_rule(view, settings))
    budgets = dict(req.budgets_usd or {})
    return ChargebackScenario(
        export, period, zone_name, partitions, unmatched, budgets, site, rate, provenance
    )


def _offers(
    view: CatalogView, partitions: list[PartitionScenario]
) -> tuple[list[PartitionScenario], list[Note]]:
    """Each partition with its GPU's comparable offer (machines given by power only have
    none), the offers stated and their prices dated."""
    known = [p for p in partitions if p.machine.gpu is not None]
    found, offered = comparable_offers_of(view, [p.machine.gpu.id for p in known if p.machine.gpu])
    by_partition = {p.partition: o for p, o in zip(known, found, strict=True)}
    out = []
    noted: list[Note] = list(offered)
    for p in partitions:
        offer = by_partition.get(p.partition)
        if offer is not None:
            noted.append(Priced(f"offer {offer.id}", offer.as_of))
        out.append(
            PartitionScenario(
                p.partition, p.cluster, p.site_label, p.site, p.machine, p.used_gpu_hours, offer
            )
        )
    return out, noted


def compute_chargeback(
    view: CatalogView, req: ChargebackRequest, settings: Settings
) -> ChargebackResult:
    """The period's chargeback; see :class:`ChargebackResult`."""
    return compose(resolve(view, req, settings))


def compose(s: ChargebackScenario) -> ChargebackResult:
    """The answer to scenario ``s``, from it alone."""
    rates: dict[str, cb.MachineRates] = {}
    machines = []
    for i, p in enumerate(s.partitions):
        m = p.machine
        intensity = p.site.grid.carbon_intensity_g_per_kwh
        gpus = m.owned.gpu_count * m.count
        energy = m.owned.busy_power_w / m.owned.gpu_count / 1000.0
        owned = None
        if p.used_gpu_hours > 0:
            owned = costing.owned_rate(
                m.owned, m.usage, p.site.electricity_price_usd_per_kwh, m.overhead_usd_per_year
            ).cost_usd_per_gpu_hour
        rented = float(p.offer.price_usd_per_hour) / p.offer.gpu_count if p.offer else None
        co2e = costing.co2e_kg(energy, intensity)
        rates[p.partition] = cb.MachineRates(owned or 0.0, rented, energy, co2e)
        capacity = gpus * s.period.hours
        used = cb.measured_utilization(p.used_gpu_hours, gpus, s.period)
        machines.append(
            MachineUse(
                index=i,
                partition=p.partition,
                cluster=p.cluster,
                site=p.site_label,
                grid_region=p.site.grid.id,
                electricity_price_usd_per_kwh=sig8(p.site.electricity_price_usd_per_kwh),
                co2e_kg_per_gpu_hour=sig8(co2e),
                gpu_id=m.gpu.id if m.gpu else None,
                gpus=gpus,
                capacity_gpu_hours=sig8(capacity),
                gpu_hours=sig8(p.used_gpu_hours),
                utilization=sig8(used),
                idle_share=sig8(1.0 - used),
                owned_usd_per_gpu_hour=sig8(owned),
                rented_usd_per_gpu_hour=sig8(rented),
                offer_id=p.offer.id if p.offer else None,
                energy_kwh_per_gpu_hour=sig8(energy),
            )
        )
    accounts = cb.charge(s.export.jobs, s.period, rates)
    total = cb.Charge()
    for a in accounts:
        _merge(total, a.total)
    charged = {a.account for a in accounts}
    accounts += [  # a budget with no job in the period: all of it left
        cb.AccountCharge(name, cb.Charge(), {})
        for name in sorted(s.budgets_usd)
        if name not in charged
    ]
    answered = [_account(a, s.budgets_usd.get(a.account)) for a in accounts]
    provenance = s.provenance.fields(warnings_first=_over_budget(answered))
    return ChargebackResult(
        accounts=answered,
        total=ChargeFigures(**_figures(total)),
        machines=machines,
        period_hours=sig8(s.period.hours),
        time_zone=s.time_zone,
        unread=[Unread(line=u.line, reason=u.reason) for u in s.export.unread],
        steps=s.export.steps,
        without_gpus=s.export.without_gpus,
        not_started=s.export.not_started,
        unmatched=s.unmatched,
        currency_rate=currency_rate(s.rate),
        **provenance,
    )


def _over_budget(accounts: list[AccountCharge]) -> list[str]:
    """A warning per account whose owned cost is over its budget."""
    return [
        f"account {a.account!r} is over its budget: owned cost ${a.owned_cost_usd:,.2f} "
        f"against ${a.budget_usd:,.2f}"
        for a in accounts
        if a.budget_usd is not None and a.budget_left_usd is not None and a.budget_left_usd < 0
    ]


def _merge(into: cb.Charge, part: cb.Charge) -> None:
    into.jobs += part.jobs
    into.gpu_hours += part.gpu_hours
    into.owned_cost_usd += part.owned_cost_usd
    into.rented_cost_usd = (
        None
        if into.rented_cost_usd is None or part.rented_cost_usd is None
        else into.rented_cost_usd + part.rented_cost_usd
    )
    into.energy_kwh += part.energy_kwh
    into.co2e_kg += part.co2e_kg


def _figures(c: cb.Charge) -> dict[str, Any]:
    return dict(
        jobs=c.jobs,
        gpu_hours=sig8(c.gpu_hours),
        owned_cost_usd=sig8(c.owned_cost_usd),
        rented_cost_usd=sig8(c.rented_cost_usd),
        energy_kwh=sig8(c.energy_kwh),
        co2e_kg=sig8(c.co2e_kg),
    )


def _account(a: cb.AccountCharge, budget_usd: float | None) -> AccountCharge:
    users = sorted(a.users.items(), key=lambda u: (-u[1].gpu_hours, u[0]))
    left = None if budget_usd is None else budget_usd - a.total.owned_cost_usd
    return AccountCharge(
        account=a.account,
        users=[UserCharge(user=name, **_figures(c)) for name, c in users],
        budget_usd=budget_usd,
        budget_left_usd=sig8(left),
        **_figures(a.total),
    )


def _unmatched(export: ReadExport, period: cb.Period, served: set[str]) -> dict[str, int]:
    """GPU jobs in the period on partitions no machine serves, by partition."""
    out: dict[str, int] = {}
    for job in export.jobs:
        if job.partition not in served and cb.gpu_hours_in(job, period) > 0:
            out[job.partition] = out.get(job.partition, 0) + 1
    return out


def _caveats(export: ReadExport, unmatched: dict[str, int]) -> list[Note]:
    """What the answer leaves out, said."""
    notes: list[Note] = []
    if export.unread:
        first = export.unread[0]
        notes.append(
            Caveat(
                f"{len(export.unread)} line(s) of the export could not be read and are not "
                f"charged (see unread; line {first.line}: {first.reason})"
            )
        )
    for partition, jobs in sorted(unmatched.items()):
        notes.append(
            Caveat(
                f"{jobs} GPU job(s) on partition {partition!r}, which no machine serves, are "
                "not charged: add a machine entry for it"
            )
        )
    return notes
