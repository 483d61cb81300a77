"""Rank every option for a workload (``POST /v1/compare``).

Resolution (names, defaults, the reference GPU, per-GPU speed, which options qualify) happens
once per request over the in-memory catalog view; the arithmetic over all options is
:mod:`app.costing.vector`'s, in NumPy. The steps: :func:`compute_compare` resolves the inputs,
:func:`_select` masks the offers and builds, :func:`_candidates` lays them out for the model,
:func:`_one_per_family` keeps each instance type's cheapest region, and :class:`~app.usecases.compare_listing.Listing`
writes the ranked options.
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np

from app import costing
from app.catalog.view import CatalogView
from app.costing import defaults, vector
from app.costing.sourced import Assumed, Note, Sourced
from app.models.answers import PriceAge
from app.models.compare import CompareOption, CompareRequest, CompareResult, CompareSummary
from app.settings import Settings
from app.steps.cloud_offer import host_power
from app.steps.compare_speed import (
    GpuSpeed,
    Reference,
    benchmark_speed,
    filter_gpus,
    llm_placeholder,
    llm_plan,
    llm_reference,
    relative_speed,
)
from app.steps.currency import resolve_currency
from app.steps.demand import resolve_usage
from app.steps.llm import LlmRun, resolve_run
from app.steps.memory import memory_need
from app.steps.scaling import Scaling, declared_scaling_only, note_scaling
from app.steps.site import carbon_region, request_electricity, resolve_region
from app.steps.spot import note_spot_defaults, spot_defaults
from app.steps.trail import (
    SEED_001,
    Provenance,
    currency_rate,
    note_launch_overhead,
    price_age,
    price_rule,
    sig8,
)
from app.usecases.compare_candidates import Candidates, Selection
from app.usecases.compare_listing import Listing

PURCHASE_NOTE = (
    "desktops: the purchase is counted in full over the horizon (no resale value); energy "
    "counts GPUs + host on both sides: a desktop's base power, a cloud host's CPU and memory "
    "(Green Algorithms' model from its vCPUs and GB, else 100 W), x PUE"
)


def offer_host_power_w(snap: CatalogView) -> np.ndarray:
    """Every offer's host power (W), aligned with the view's offers; built once per view."""
    return snap.memoized(
        "offer_host_power_w",
        lambda: np.array([host_power(snap, o)[0] for o in snap.offers.offers], dtype=float),
    )


def compute_compare(snap: CatalogView, req: CompareRequest, settings: Settings) -> CompareResult:
    """Rank every option; see :class:`CompareResult` and :func:`app.costing.vector.rank`."""
    notes: list[Note] = []
    scaling = declared_scaling_only(req, req.workload.gpu_count)
    run = None
    if req.workload.llm is not None:
        run, noted = resolve_run(snap, req.workload.llm)
        notes += noted
    if run is not None:
        gpu_speed, ref = llm_placeholder(len(snap.gpus)), Reference("one LLM job", None)
    elif req.workload.benchmark:
        (gpu_speed, ref), noted = benchmark_speed(snap, req, scaling)
        notes += noted
    else:
        (gpu_speed, ref), noted = relative_speed(snap, req, scaling)
        notes += noted
    ref_hours = 0.0
    if run is None:
        ref_hours, noted = _reference_hours(snap, req, ref)
        notes += noted
    region = resolve_region(snap, req.region)
    rate, noted = resolve_currency(snap, req)
    notes += noted
    price, noted = request_electricity(snap, req, region, settings, rate)
    notes += noted
    grid, noted = carbon_region(snap, region, settings)
    notes += noted
    ci_default = grid.carbon_intensity_g_per_kwh
    sel, noted = _select(snap, req, gpu_speed, ref)
    notes += noted
    cand = _candidates(snap, req, sel, gpu_speed, scaling, ci_default, run)
    if cand.llm is not None:
        (ref, ref_hours), noted = llm_reference(snap, req, cand.g, cand.count, cand.llm)
        notes += noted
    work = vector.Workload(ref_hours, ref.run_hours, req.horizon_months, price)
    later, noted = _ranked_later(snap, req, cand)
    notes += noted
    costs = vector.rank(cand.opts, work, later)
    order, others = _one_per_family(snap, req, cand, costs.order)
    listing = Listing(snap, cand, costs, gpu_speed, ref, rate, others)
    listed = [listing.option(int(j), r + 1) for r, j in enumerate(order[: req.limit])]
    unfit = np.flatnonzero(cand.fits == 0)
    if req.filters.include_unfit and len(listed) < req.limit:
        listed += [listing.option(int(j), None) for j in unfit[: req.limit - len(listed)]]
    so_far = Provenance(tuple(notes), price_rule(snap, settings))
    ranking, noted = _ranking_warnings(req, cand, order, ref)
    notes += noted
    age, stale = _listed_price_age(settings, snap, listed, so_far.prices)
    warnings = so_far.warnings + cand.warnings + ranking + stale
    if run is None:
        notes += note_scaling(
            scaling, [req.workload.gpu_count, *(o.gpu_count for o in listed)]
        ).notes
    desk_order = order[cand.is_desk[order]]
    provenance = Provenance(tuple(notes), price_rule(snap, settings))
    return CompareResult(
        currency_rate=currency_rate(rate),
        reference=ref.label,
        reference_hours_per_month=sig8(ref_hours),
        runs_per_month=sig8(work.runs_per_month),
        horizon_months=req.horizon_months,
        electricity_price_usd_per_kwh=price,
        best_id=listed[0].id if len(order) else None,
        best_cloud_id=cand.ident(snap, costs.best_cloud) if costs.best_cloud >= 0 else None,
        best_desktop_id=cand.ident(snap, int(desk_order[0])) if len(desk_order) else None,
        summary=CompareSummary(
            considered=int(cand.sel.considered),
            ranked=len(costs.order),
            filtered_out=int(cand.sel.considered - len(cand.g)),
            does_not_fit=len(unfit),
            no_runtime=int(np.sum(~np.isfinite(cand.time_factor) & (cand.fits != 0))),
            over_capacity=int(costs.over_capacity.sum()),
            other_regions=int(len(costs.order) - len(order)),
        ),
        options=listed,
        warnings=warnings,
        assumptions=provenance.assumptions,
        sources=provenance.sources,
        prices=age,
    )


def _reference_hours(
    snap: CatalogView,
    req: CompareRequest,
    ref: Reference,
) -> Sourced[float]:
    """Work per month, in hours on the reference: given GPU-hours, runs x run time, or the
    utilization (given, or the default profile) of a 730-hour month."""
    notes: list[Note] = []
    if req.gpu_hours_per_month is not None:
        return Sourced(req.gpu_hours_per_month, tuple(notes))
    if req.runs_per_month is not None:
        return Sourced(req.runs_per_month * ref.run_hours, tuple(notes))
    usage, noted = resolve_usage(snap, req)
    notes += noted
    notes.append(
        Assumed(
            "usage",
            f"{usage.utilization:g} x 730 h/month on {ref.label}",
            "utilization is the fraction of the month the reference is busy",
        )
    )
    return Sourced(usage.utilization * costing.HOURS_PER_MONTH, tuple(notes))


def _select(
    snap: CatalogView,
    req: CompareRequest,
    speed: GpuSpeed,
    ref: Reference,
) -> Sourced[Selection]:
    """Masks over offers and builds from the request's filters and memory needs: the
    workload's ``memory_gb``, else (no memory preset or floor given) the reference GPU's
    memory, stated (work sized for an 80 GB card does not run on a 16 GB one)."""
    notes: list[Note] = []
    f, w = req.filters, req.workload
    offers, builds = snap.offers, snap.builds
    o_gpu, b_gpu = offers.gpu_index, builds.gpu_index
    o_keep = np.full(len(offers.offers), f.include_cloud)
    b_keep = np.full(len(builds.builds), f.include_desktop)
    if f.providers:
        o_keep &= np.isin(offers.provider, [str(p) for p in f.providers])
    if f.pricing_models:
        o_keep &= np.isin(offers.pricing_model, [str(p) for p in f.pricing_models])
    if f.regions:
        o_keep &= np.isin(offers.region, f.regions)
    if f.max_price_usd_per_hour is not None:
        o_keep &= offers.price_usd_per_hour <= f.max_price_usd_per_hour
    if not f.include_free_tiers:
        o_keep &= ~offers.free
    if f.gpus:
        wanted = [snap.gpu_position[g] for g in filter_gpus(snap, f.gpus)]
        o_keep &= np.isin(o_gpu, wanted)
        b_keep &= np.isin(b_gpu, wanted)
    gpu_fits = speed.fits.copy()
    need, noted = memory_need(req.memory_preset, req.precision)
    notes += noted
    memory_gb = w.memory_gb
    if memory_gb is None and need is None and not f.min_gpu_memory_gb and ref.gpu is not None:
        memory_gb = ref.gpu.memory_gb
        if memory_gb:
            notes.append(
                Assumed(
                    "workload.memory_gb",
                    memory_gb,
                    f"default: the reference GPU's memory ({ref.gpu.id}), per GPU; GPUs with less "
                    "do not fit (give workload.memory_gb for what the job really needs)",
                )
            )
    if memory_gb is not None:
        gpu_fits = np.where(snap.gpu_memory_gb < memory_gb - 1e-9, 0, gpu_fits).astype(np.int8)
    floors = [m for m in (f.min_gpu_memory_gb, need.required_gb if need else None) if m]
    if floors:
        o_keep &= snap.gpu_memory_gb[o_gpu] >= max(floors) - 1e-9
        b_keep &= snap.gpu_memory_gb[b_gpu] >= max(floors) - 1e-9
    considered = len(offers.offers) * f.include_cloud + len(builds.builds) * f.include_desktop
    return Sourced(
        Selection(np.flatnonzero(o_keep), np.flatnonzero(b_keep), gpu_fits, considered),
        tuple(notes),
    )


def _spot_risk(req: CompareRequest) -> vector.InterruptionRisk | None:
    """The request's spot interruption model, hours (None: spot priced as never
    interrupted)."""
    if req.spot is None:
        return None
    s = req.spot
    return vector.InterruptionRisk(
        s.interruptions_per_hour,
        s.checkpoint_interval_min / 60.0,
        s.restart_overhead_min / 60.0,
        s.checkpoint_write_min / 60.0,
    )


def _candidates(
    snap: CatalogView,
    req: CompareRequest,
    sel: Selection,
    speed: GpuSpeed,
    scaling: Scaling,
    ci_default: float,
    run: LlmRun | None = None,
) -> Candidates:
    """The selected options as the model's arrays; ``ci_default`` (gCO2e/kWh) where an
    offer has no catalog region, and for desktops; a language-model job (``run``) fits and
    is timed per option by :func:`app.steps.compare_speed.llm_plan`, not by ``speed``."""
    offers, builds, oi, bi = snap.offers, snap.builds, sel.oi, sel.bi
    n_o, n_b = len(oi), len(bi)
    g = np.concatenate([offers.gpu_index[oi], builds.gpu_index[bi]])
    count = np.concatenate([offers.gpu_count[oi], builds.gpu_count[bi]])
    spot = np.concatenate([offers.spot[oi], np.zeros(n_b, bool)])
    colab = np.concatenate([offers.pricing_model[oi] == "compute_units", np.zeros(n_b, bool)])
    # A job too big for one instance runs on several 8-GPU SXM servers (on-demand or
    # committed): a desktop is one machine, a spot cluster stops whenever any one node is
    # reclaimed, and only such servers have the fabric the training MFU was measured on.
    sxm = np.array([str(gpu.form_factor) == "datacenter_sxm" for gpu in snap.gpus])
    node = defaults.LLM_CLUSTER_NODE_GPUS.number
    cluster = (np.arange(n_o + n_b) < n_o) & ~spot & ~colab & sxm[g] & (count >= node)
    plan = llm_plan(snap, run, g, count, cluster) if run is not None else None
    k = plan.nodes.astype(float) if plan is not None else np.ones(n_o + n_b)
    k_o = k[:n_o]
    if plan is not None:
        # One job's hours on each option over the fastest option's (the reference).
        fits = plan.fits
        tf = plan.hours / (plan.hours[plan.fastest] if plan.fastest >= 0 else 1.0)
    else:
        fits = sel.gpu_fits[g]
        counts, where = np.unique(count, return_inverse=True)
        gain = np.array([scaling.speedup(int(n)) for n in counts])[where]
        tf = np.where(fits == 0, np.nan, speed.hours[g] / gain)
    risk = _spot_risk(req)
    overhead, warnings = _interruption_overhead(snap, oi, n_b, risk)
    ci = np.concatenate([offers.carbon_intensity_g_per_kwh[oi], np.full(n_b, np.nan)])
    ci = np.where(np.isnan(ci), ci_default, ci)
    cloud_zeros = np.zeros(n_b)
    opts = vector.Options(
        is_desktop=np.concatenate([np.zeros(n_o, bool), np.ones(n_b, bool)]),
        price_usd_per_hour=np.concatenate([offers.price_usd_per_hour[oi] * k_o, cloud_zeros]),
        monthly_fee_usd=np.concatenate([offers.monthly_fee_usd[oi] * k_o, cloud_zeros]),
        included_hours_per_month=np.concatenate(
            [offers.included_hours_per_month[oi] * k_o, cloud_zeros]
        ),
        billing_increment_h=np.concatenate([offers.billing_increment_h[oi], cloud_zeros]),
        billing_minimum_h=np.concatenate([offers.billing_minimum_h[oi], cloud_zeros]),
        upfront_usd=np.concatenate([np.zeros(n_o), builds.upfront_usd[bi]]),
        power_w=np.concatenate(
            [
                (
                    snap.gpu_tdp_w[offers.gpu_index[oi]] * offers.gpu_count[oi]
                    + offer_host_power_w(snap)[oi]
                )
                * k_o,
                builds.power_w[bi],
            ]
        ),
        pue=np.concatenate([offers.pue[oi], np.ones(n_b)]),
        carbon_intensity_g_per_kwh=ci,
        time_factor=tf,
        overhead_factor=overhead,
        max_batch_size=speed.max_batch_size[g] * count,
        commitment_term_months=np.concatenate([offers.commitment_months[oi], np.zeros(n_b)]),
        launch_overhead_h=np.concatenate(
            [np.full(n_o, req.launch_overhead_min / 60.0), np.zeros(n_b)]
        ),
    )
    return Candidates(
        sel, n_o, g, count, opts.is_desktop, spot, fits, tf, overhead, ci, opts, risk, warnings,
        plan,
    )  # fmt: skip


def _interruption_overhead(
    snap: CatalogView, oi: np.ndarray, n_b: int, risk: vector.InterruptionRisk | None
) -> tuple[np.ndarray, list[str]]:
    """Billed hours per useful hour of the selected offers (then 1 for ``n_b`` desktops):
    without the caller's ``spot`` model, each spot offer's own default (AWS's band, else
    Google's rate); with it, its factor for every spot offer (and a warning when the job would
    never finish)."""
    overhead = np.ones(len(oi) + n_b)
    if risk is None:
        overhead[: len(oi)] = spot_defaults(snap).overhead[oi]
        return overhead, []
    overhead[: len(oi)] = np.where(snap.offers.spot[oi], risk.time_factor, 1.0)
    if not math.isinf(risk.time_factor):
        return overhead, []
    return overhead, [
        "spot and interruptible offers are not costed: with these interruption, checkpoint "
        "and restart times the job would practically never finish"
    ]


def _ranked_later(
    snap: CatalogView,
    req: CompareRequest,
    cand: Candidates,
) -> Sourced[np.ndarray | None]:
    """Unless the caller asks for spot (``spot`` given, or ``spot`` among the pricing
    models), offers with guaranteed capacity (on-demand, committed) and desktops rank before
    spot and interruptible offers and Colab's compute-unit plans (GPUs as available, sessions
    capped), each group cheapest first: neither is capacity a lab can count on. The mask of
    options ranked later (None: all by cost); a desktop's break-even is measured against the
    first cloud of the ranking."""
    notes: list[Note] = []
    pricing = [str(p) for p in req.filters.pricing_models or []]
    if req.spot is not None or "spot" in pricing or "compute_units" in pricing:
        return Sourced(None, tuple(notes))
    colab = np.concatenate(
        [
            snap.offers.pricing_model[cand.sel.oi] == "compute_units",
            np.zeros(len(cand.g) - cand.n_o, bool),
        ]
    )
    later = cand.spot | colab
    if not later.any():
        return Sourced(None, tuple(notes))
    notes.append(
        Assumed(
            "ranking",
            "guaranteed capacity first",
            "default: on-demand and committed offers and desktops rank before spot or "
            "interruptible offers (reclaimable at any time) and Colab's compute-unit plans (GPUs "
            "as available, sessions capped), and a desktop's break-even is against the first "
            "cloud so ranked; give `spot` or filter pricing_models to rank all by cost",
        )
    )
    return Sourced(np.asarray(later, dtype=bool), tuple(notes))


def _one_per_family(
    snap: CatalogView, req: CompareRequest, cand: Candidates, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """With ``cheapest_region_only``, the ranking keeps each (provider, instance type,
    pricing model)'s cheapest region; returns the kept order and, per option, how many other
    regions it stands for."""
    others = np.zeros(len(cand.g), dtype=np.int64)
    if not (req.filters.cheapest_region_only and len(order)):
        return order, others
    family_of = snap.offers.family
    n_b = len(cand.g) - cand.n_o
    # Desktops get their own family numbers after the offers'.
    family = np.concatenate([family_of[cand.sel.oi], family_of.max(initial=0) + 1 + np.arange(n_b)])
    _, first, counts = np.unique(family[order], return_index=True, return_counts=True)
    others[order[first]] = counts - 1
    return order[np.sort(first)], others


def _ranking_warnings(
    req: CompareRequest,
    cand: Candidates,
    order: np.ndarray,
    ref: Reference,
) -> Sourced[list[str]]:
    """What the ranking leaves out (warnings), and the assumptions behind it (notes)."""
    notes: list[Note] = []
    warnings = [PURCHASE_NOTE]
    spot_ranked = int(np.sum(cand.spot[order]))
    risk = cand.risk
    if risk is None and spot_ranked:
        notes += note_spot_defaults().notes
    if risk is not None and math.isfinite(risk.time_factor):
        notes.append(
            Assumed("spot.billed_hours_per_useful_hour", sig8(risk.time_factor), vector.DALY_2006)
        )
    if ref.run_hours is None:
        notes.append(
            Assumed(
                "billing",
                "continuous",
                "a GPU-hours workload is billed as whole sessions, without per-run rounding",
            )
        )
    else:
        notes += note_launch_overhead(
            req, "billed with each cloud run, before its increments and minimum"
        ).notes
    notes.append(
        Assumed(
            "horizon_months",
            req.horizon_months,
            "requested"
            if "horizon_months" in req.model_fields_set
            else f"default: {SEED_001}, 'if you do deep learning for more than a year, buy a desktop'",
        )
    )
    return Sourced(warnings, tuple(notes))


def _listed_price_age(
    settings: Settings,
    snap: CatalogView,
    listed: list[CompareOption],
    noted: dict[str, dt.date],
) -> tuple[PriceAge, list[str]]:
    """Age of the catalog prices behind the listed options (each offer's price, each
    desktop's GPU and barebone prices) and of those ``noted`` while resolving (electricity),
    with the one warning the answer carries when any is older than the limit."""
    prices: dict[str, dt.date] = dict(noted)
    for opt in listed:
        offer = snap.offer_by_id.get(opt.id)
        build = snap.build_by_id.get(opt.id)
        if offer is not None:
            prices[f"offer {offer.id}"] = offer.as_of
        elif build is not None:
            price = build.gpu.purchase_price()
            if price is not None and price.as_of is not None:
                prices[f"gpu {build.gpu.id}: {price.kind}"] = price.as_of
            prices[f"barebone {build.barebone.id}"] = build.barebone.as_of
    age, stale = price_age(price_rule(snap, settings), prices)
    if not stale:
        return age, []
    return age, [
        f"{len(stale)} of the {age.prices_used} catalog prices behind the listed options "
        f"are older than {age.max_age_days} days (oldest: {age.oldest_price}, dated "
        f"{age.oldest_price_date}); see `prices`"
    ]
