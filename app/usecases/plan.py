"""Fleet plan (``POST /v1/plan``): :func:`resolve` turns the request into a :class:`PlanScenario`
(the demand month by month, each candidate desktop's price, capacity and running cost per
reference GPU-hour, the cloud's cost per reference GPU-hour, the limits; every default stated
once), :func:`compose` solves it with the pure model (:mod:`app.costing.plan`) three ways, the
plan, all-cloud and all-desktop, and writes the answer.

Units: demand in GPU-hours of work on the reference GPU; a desktop or cloud GPU of another
kind serves ``1 / time_factor`` reference GPU-hours per hour (the speed model of break-even).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from app import costing
from app.catalog.layout import wants_server
from app.catalog.queries import SIMILAR_BANDWIDTH, similar_gpu_ids
from app.catalog.view import CatalogView
from app.costing import defaults, offers
from app.costing.money import ExchangeRate
from app.costing.plan import (
    PlanBuild,
    PlanInfeasible,
    PlanLimits,
    PlanProblem,
    PlanSolution,
    solve_plan,
)
from app.costing.sourced import Assumed, Cited, Note, Sourced
from app.errors import CatalogGap, InvalidRequest
from app.models.inputs import CloudSpec, DesktopSpec
from app.models.plan import PlanRequest
from app.settings import Settings
from app.steps.cloud_offer import COMPARABLE_RULE, comparable_offer, offer_label, resolve_cloud
from app.steps.currency import resolve_currency
from app.steps.desktop import (
    ResolvedDesktop,
    resolve_desktop,
)
from app.steps.discount import resolve_discount_rate
from app.steps.plan_commitments import CommitmentCandidate, resolve_commitments
from app.steps.site import request_electricity, resolve_region
from app.steps.speed import speed, speed_evidence
from app.steps.tax import Tax, resolve_tax
from app.steps.trail import LIFETIME_SOURCE, SEED_001, Provenance, price_rule

if TYPE_CHECKING:
    from app.models import CloudOffer, Gpu, Region


HOURS_PER_MONTH = costing.HOURS_PER_MONTH
# The solver's wall-clock budget per solve: sized so a 60-month plan over 8 candidates solves
# within it on a 2-CPU machine (see docs/operations.md); past the budget the best plan found
# is answered with its gap.
PLAN_TIME_LIMIT_S = 2.0
CAPACITY_PROFILE = str(defaults.CAPACITY_PROFILE.value)
DEFAULT_MONTHS = round(defaults.PLAN_MONTHS.number)


@dataclass(frozen=True)
class Candidate:
    """A desktop the plan may buy: the resolved machine, its GPU's hours per reference hour
    and the model's view of it (:class:`PlanBuild`)."""

    label: str
    desk: ResolvedDesktop
    ratio: costing.SpeedRatio
    build: PlanBuild


@dataclass(frozen=True)
class CloudChoice:
    """The cloud the plan rents from: the offer (None for a given price), its label and GPU,
    the price per GPU-hour (USD), its GPU's hours per reference hour, and the price's date."""

    offer: CloudOffer | None
    label: str
    gpu: Gpu | None
    price_usd_per_gpu_hour: float
    ratio: costing.SpeedRatio
    as_of: dt.date | None

    @property
    def cost_usd_per_gpu_hour(self) -> float:
        """Cost per reference GPU-hour rented, USD."""
        return self.price_usd_per_gpu_hour * self.ratio.time_factor


@dataclass(frozen=True)
class PlanScenario:
    """A plan with every input explicit: the reference GPU, the first month (year, month),
    the model's problem (its amounts with VAT when ``tax`` adds it), the candidates and cloud
    behind it (net), the desktops' electricity price (USD/kWh, net), the owned GPUs'
    utilization ceiling, the VAT, the answer's rate and what it rests on."""

    ref: Gpu
    start: tuple[int, int]
    problem: PlanProblem
    candidates: tuple[Candidate, ...]
    cloud: CloudChoice | None
    electricity_price_usd_per_kwh: float
    max_utilization: float
    tax: Tax
    rate: ExchangeRate
    provenance: Provenance
    commitments: tuple[CommitmentCandidate, ...] = ()

    def month_label(self, t: int) -> str:
        """``YYYY-MM`` of month ``t`` (0 = the first)."""
        y, m = divmod(self.start[1] - 1 + t, 12)
        return f"{self.start[0] + y:04d}-{m + 1:02d}"


@dataclass(frozen=True)
class PlanOutcome:
    """The scenario solved: the scenario, the plan and all-desktop (each None with the reason
    when no such plan meets the demand within the limits or the time limit), and the
    solver's wall-clock time (s)."""

    scenario: PlanScenario
    plan: PlanSolution | None
    plan_note: str | None
    all_desktop: PlanSolution | None
    all_desktop_note: str | None
    solve_time_s: float


def resolve(view: CatalogView, req: PlanRequest, settings: Settings) -> PlanScenario:
    """The scenario of ``req`` over ``view``: 404 for unknown names or a figure the catalog
    lacks, 422 for a desktop without a GPU or a cloud with a monthly fee."""
    notes: list[Note] = []
    rate, noted = resolve_currency(view, req)
    notes += noted
    ref = view.resolve_gpu(req.gpu)
    notes.append(Cited(f"gpu {ref.id}: specs and TDP", ref.source, ref.as_of))
    start, noted = _start(view, req)
    notes += noted
    demand, noted = _demand(req, start)
    notes += noted
    region = resolve_region(view, req.region)
    price, noted = request_electricity(view, req, region, settings, rate)
    notes += noted
    max_u, noted = _max_utilization(view, req)
    notes += noted
    tax, noted = resolve_tax(view, req.tax_exempt, req, region)
    notes += noted
    candidates, noted = _candidates(view, req, ref, price, max_u, rate, tax, region)
    notes += noted
    cloud, noted = _cloud(view, req, ref, rate)
    notes += noted
    commitments: tuple[CommitmentCandidate, ...] = ()
    if cloud:
        commitments, noted = resolve_commitments(view, req, ref, cloud.offer, max_u, tax)
        notes += noted
    discount, noted = resolve_discount_rate(view, req.annual_discount_rate)
    notes += noted
    c = req.constraints
    problem = PlanProblem(
        demand_gpu_hours=demand,
        builds=tuple(cand.build for cand in candidates) + tuple(cand.build for cand in commitments),
        cloud_usd_per_gpu_hour=cloud.cost_usd_per_gpu_hour * tax.factor if cloud else None,
        annual_discount_rate=discount,
        limits=PlanLimits(c.budget_usd, c.max_machines, c.max_power_w),
    )
    notes += _note_model().notes
    provenance = Provenance(tuple(notes), price_rule(view, settings))
    return PlanScenario(
        ref, start, problem, candidates, cloud, price, max_u, tax, rate, provenance, commitments
    )


def _start(
    view: CatalogView,
    req: PlanRequest,
) -> Sourced[tuple[int, int]]:
    """The first month: given, else the month after the prices' day (stated)."""
    notes: list[Note] = []
    if req.start_month is not None:
        year, month = req.start_month.split("-")
        return Sourced((int(year), int(month)), tuple(notes))
    carry, m = divmod(view.day.month, 12)
    start = (view.day.year + carry, m + 1)
    notes.append(
        Assumed(
            "start_month",
            f"{start[0]:04d}-{start[1]:02d}",
            "default: the month after the prices' day",
        )
    )
    return Sourced(start, tuple(notes))


def _demand(
    req: PlanRequest,
    start: tuple[int, int],
) -> Sourced[tuple[float, ...]]:
    """Demand per month: the list as given, else the baseline with each calendar month's
    peak over ``months`` (default: one desktop lifetime, stated)."""
    notes: list[Note] = []
    if req.gpu_hours_per_month is not None:
        return Sourced(tuple(float(x) for x in req.gpu_hours_per_month), tuple(notes))
    months = req.months
    if months is None:
        months = DEFAULT_MONTHS
        notes.append(Assumed("months", months, f"default: one desktop lifetime, {LIFETIME_SOURCE}"))
    peaks: dict[int, float] = {}
    for p in req.peaks or ():  # of two peaks in one month, the larger
        peaks[p.month] = max(p.gpu_hours, peaks.get(p.month, 0.0))
    base = float(req.baseline_gpu_hours_per_month)
    return Sourced(
        tuple(float(peaks.get((start[1] - 1 + t) % 12 + 1, base)) for t in range(months)),
        tuple(notes),
    )


def _max_utilization(
    view: CatalogView,
    req: PlanRequest,
) -> Sourced[float]:
    """The share of a month's hours an owned GPU serves: given, else seed 001's shared
    cluster profile (stated)."""
    notes: list[Note] = []
    if req.max_utilization is not None:
        return Sourced(req.max_utilization, tuple(notes))
    profile = view.profile(CAPACITY_PROFILE)
    notes.append(
        Assumed(
            "max_utilization",
            profile.utilization,
            f"default: an owned GPU is busy at most as a well-used shared cluster, profile "
            f"'{profile.id}' ({profile.description}): {profile.source}",
        )
    )
    return Sourced(profile.utilization, tuple(notes))


def _default_specs(
    view: CatalogView,
    ref: Gpu,
) -> Sourced[list[DesktopSpec]]:
    """The reference GPU in 1, 2, ... GPUs, as many as a desktop PSU carries (seed 001's
    rule: the GPUs' power + 300 W within a 1,600 W PSU) and a catalog barebone holds."""
    notes: list[Note] = []
    if ref.purchase_price() is None:
        raise CatalogGap(
            f"no catalog price for {ref.id} to build default desktops: give desktops with "
            "gpu_price_usd or total_price_usd"
        )
    most = max((b.gpu_slots for b in view.barebones), default=0)
    servers = max((b.gpu_slots for b in view.barebones if str(b.kind) == "server"), default=0)
    if wants_server(ref) and servers:
        counts = list(range(1, servers + 1))
        notes.append(
            Assumed(
                "desktops",
                [f"{n}x {ref.id}" for n in counts],
                "default: the reference GPU (a passively cooled datacenter card) in every GPU "
                "count a catalog server barebone holds, each in the cheapest server that holds it "
                "(a server's PSUs are sized for its GPUs, on a 208/240 V circuit)",
            )
        )
        return Sourced([DesktopSpec(gpu=ref.id, gpu_count=n) for n in counts], tuple(notes))
    counts = [n for n in range(1, most + 1) if offers.fits_desktop_psu(n, ref.tdp_w)] or [1]
    notes.append(
        Assumed(
            "desktops",
            [f"{n}x {ref.id}" for n in counts],
            f"default: the reference GPU in every GPU count a desktop PSU carries ({SEED_001}: "
            f"GPUs' power + {defaults.PSU_HEADROOM.shown()} <= "
            f"{defaults.LARGEST_DESKTOP_PSU.shown()}), each in the "
            "cheapest catalog barebone that holds it",
        )
    )
    return Sourced([DesktopSpec(gpu=ref.id, gpu_count=n) for n in counts], tuple(notes))


def _candidates(
    view: CatalogView,
    req: PlanRequest,
    ref: Gpu,
    price: float,
    max_u: float,
    rate: ExchangeRate,
    tax: Tax,
    region: Region | None,
) -> Sourced[tuple[Candidate, ...]]:
    """Each candidate desktop priced for the model (with ``tax``'s VAT): capacity and
    electricity per reference GPU-hour (its GPU's speed relative to the reference), busy
    wall power and service life; its power held to ``region``'s socket circuit."""
    notes: list[Note] = []
    specs: list[DesktopSpec] = list(req.desktops or [])
    if not specs:
        default_specs, noted = _default_specs(view, ref)
        notes += noted
        specs = list(default_specs)
    evidence = speed_evidence(view)
    out = []
    for i, spec in enumerate(specs):
        name = f"desktops[{i}]"
        desk, noted = resolve_desktop(view, spec, name, rate=rate, with_resale=False, region=region)
        notes += noted
        assert desk.gpu is not None  # a spec with a gpu resolves one
        d = desk.desktop
        ratio = speed(evidence, ref, 1, desk.gpu, 1)
        if desk.gpu.id != ref.id:
            notes.append(
                Assumed(f"{name}.time_factor", ratio.time_factor, f"{ratio.basis}: {ratio.detail}")
            )
        life = max(1, round(d.lifetime_years * 12))
        build = PlanBuild(
            id=name,
            upfront_usd=d.upfront_usd * tax.factor,
            capacity_gpu_hours_per_month=d.gpu_count * HOURS_PER_MONTH * max_u / ratio.time_factor,
            cost_usd_per_gpu_hour=d.busy_power_w
            / d.gpu_count
            * ratio.time_factor
            / 1000
            * price
            * tax.electricity_factor,
            power_w=d.busy_power_w,
            life_months=life,
        )
        barebone = spec.barebone or _barebone_id(view, spec)
        label = f"{d.gpu_count}x {desk.gpu.id}" + (f" ({barebone})" if barebone else "")
        out.append(Candidate(label, desk, ratio, build))
    return Sourced(tuple(out), tuple(notes))


def _barebone_id(view: CatalogView, spec: DesktopSpec) -> str | None:
    if spec.total_price_usd is not None or spec.barebone_price_usd is not None:
        return None
    gpu = view.gpu(spec.gpu) if spec.gpu else None
    barebone = view.cheapest_barebone(spec.gpu_count, gpu)
    return barebone.id if barebone else None


def _cloud(
    view: CatalogView,
    req: PlanRequest,
    ref: Gpu,
    rate: ExchangeRate,
) -> Sourced[CloudChoice | None]:
    """The cloud side: the request's (an offer or a price per hour), else today's cheapest
    comparable on-demand offer; None for desktops only."""
    notes: list[Note] = []
    if not req.include_cloud:
        notes.append(Assumed("include_cloud", False, "requested: desktops only"))
        return Sourced(None, tuple(notes))
    if req.cloud is None:
        offer, noted = _default_offer(view, ref)
        notes += noted
        c, noted = resolve_cloud(view, CloudSpec(offer_id=offer.id), rate=rate, footprint=False)
        notes += noted
    else:
        c, noted = resolve_cloud(view, req.cloud, rate=rate, footprint=False)
        notes += noted
    if c.offer is not None and c.offer.commitment_term_months:
        raise InvalidRequest(
            f"cloud: {c.offer.id} is a commitment, not an hourly price: list it in "
            "`commitments` and name an hourly offer (or price) as `cloud` for the peaks"
        )
    if c.rate.monthly_fee_usd or c.rate.included_compute_units_per_month:
        raise CatalogGap(
            f"cloud: {c.offer.id if c.offer else 'this offer'} is a subscription (a monthly fee "
            "with included compute units and usage limits), not an hourly price: a plan rents "
            "by the GPU-hour; name an hourly offer or give price_usd_per_hour"
        )
    gpu = c.gpu
    if gpu is None:
        gpu = ref
        notes.append(
            Assumed("cloud.gpu", ref.id, "default: a price without a GPU rents the reference GPU")
        )
    ratio = speed(speed_evidence(view), ref, 1, gpu, 1)
    if gpu.id != ref.id:
        notes.append(
            Assumed("cloud.time_factor", ratio.time_factor, f"{ratio.basis}: {ratio.detail}")
        )
    per_gpu = c.rate.price_usd_per_hour / (c.gpu_count or 1)
    label = offer_label(c.offer) if c.offer else f"${c.rate.price_usd_per_hour:g}/h (given)"
    return Sourced(
        CloudChoice(c.offer, label, gpu, per_gpu, ratio, c.offer.as_of if c.offer else None),
        tuple(notes),
    )


def _default_offer(view: CatalogView, ref: Gpu) -> Sourced[CloudOffer]:
    """The comparable offer (:func:`app.steps.cloud_offer.comparable_offer`) of the reference
    GPU, else of a GPU with similar memory bandwidth; 1-GPU instances first."""
    tiers = (
        ("the reference GPU", (ref.id,)),
        (
            f"a GPU with memory bandwidth within {SIMILAR_BANDWIDTH:.0%} of the reference's and "
            "as much memory",
            similar_gpu_ids(view, ref, SIMILAR_BANDWIDTH),
        ),
    )
    for why, ids in tiers:
        for rule, count in (("1-GPU instances", 1), ("any GPU count", None)):
            if not ids:
                continue
            pick = comparable_offer(view, gpu_ids=ids, gpu_count=count)
            if pick is not None:
                how = (
                    f"default: the comparable offer of {pick.considered} ({why}; {rule}; "
                    f"{pick.policy}; {COMPARABLE_RULE}), as of {pick.offer.as_of}"
                )
                return Sourced(pick.offer, (Assumed("cloud.offer_id", pick.offer.id, how),))
    raise CatalogGap(
        f"no on-demand offer of {ref.id} or a similar GPU in the catalog: give cloud "
        "(offer_id or price_usd_per_hour) or include_cloud false"
    )


def _note_model() -> Sourced[None]:
    """The plan's modelling choices, stated once."""
    notes: list[Note] = []
    notes.append(
        Assumed(
            "demand",
            "a pool of 1-GPU jobs",
            "a k-GPU desktop serves k GPU-hours per hour; multi-GPU scaling does not enter",
        )
    )
    notes.append(
        Assumed(
            "cloud.billing",
            "per GPU-hour of work",
            "rented hours are billed as worked: no per-job rounding, launch time or billing minimum",
        )
    )
    notes.append(
        Assumed(
            "desktop.residual_value_usd",
            0,
            f"no resale or residual value at the horizon's end, as {SEED_001}: a desktop bought "
            "late in the plan is counted in full",
        )
    )
    notes.append(
        Assumed(
            "desktop.idle",
            "off",
            f"desktops draw power only while serving work ({SEED_001}); cash is counted at the "
            "start of each month",
        )
    )
    return Sourced(None, tuple(notes))


def _attempt(p: PlanProblem, what: str) -> tuple[PlanSolution | None, str | None]:
    try:
        return solve_plan(p, PLAN_TIME_LIMIT_S), None
    except PlanInfeasible as exc:
        return None, f"{what}: {exc.message}"


def solve(s: PlanScenario) -> PlanOutcome:
    """The plan and the all-desktop strategy (the plan itself when no cloud is used)."""
    began = time.perf_counter()
    plan, note = _attempt(s.problem, "no plan")
    desk, desk_note = plan, note
    if s.problem.cloud_usd_per_gpu_hour is not None or s.commitments:
        desk, desk_note = _attempt(
            dataclasses.replace(
                s.problem,
                cloud_usd_per_gpu_hour=None,
                builds=tuple(c.build for c in s.candidates),
            ),
            "no desktops-only fleet meets the demand",
        )
    return PlanOutcome(s, plan, note, desk, desk_note, time.perf_counter() - began)


def all_cloud_cash(s: PlanScenario) -> np.ndarray | None:
    """All-cloud cash out per month (USD), None without a cloud."""
    cost = s.problem.cloud_usd_per_gpu_hour
    if cost is None:
        return None
    return np.array(s.problem.demand_gpu_hours) * cost
