"""Rank every option for a workload (``/v1/compare``) and sweep break-even over utilization
and electricity price (``/v1/break-even/sweep``).

Resolution (names, defaults, the reference GPU, per-GPU speed) happens here, once per
request, over the in-memory catalog view; the arithmetic over all options is
:mod:`app.costing.vector`'s, in NumPy.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

import numpy as np

from app.catalog.view import CatalogView
from app.costing import vector
from app.errors import Ambiguous, CatalogGap, InvalidRequest
from app.models.calc import PriceAge
from app.models.compare import (
    CompareOption,
    CompareRequest,
    CompareResult,
    CompareSummary,
    SweepRequest,
    SweepResult,
)
from app.services.ownership import Scaling, memory_need, resolve_scaling
from app.settings import Settings
from app.usecases.desktop import resolve_desktop
from app.usecases.inputs import (
    carbon_region,
    request_electricity,
    resolve_cloud,
    resolve_currency,
    resolve_electricity,
    resolve_region,
    resolve_usage,
)
from app.usecases.speed import benchmark_reference, benchmark_time, cloud_speed, speed
from app.usecases.trail import SEED_001, Trail, currency_rate, in_currency, price_age, sig8

SEED_004 = "seed 004 (Paperspace blog, 'Best GPU for deep learning on Paperspace', 2022)"
MULTI_GPU_NOTE = (
    "runtime on N GPUs is the 1-GPU runtime / N (linear scaling, an upper bound: seed 001 "
    "reports 8x A100 at about 7x one A100)"
)


@dataclass
class GpuSpeed:
    """Per catalog GPU (aligned with ``CatalogView.gpus``): hours one GPU needs per hour of the
    reference's work (NaN = unknown or does not fit), whether the workload fits (1 yes, 0 no,
    -1 unknown), the basis and note of the figure, and the measured max batch size (0 =
    unknown)."""

    hours: np.ndarray
    fits: np.ndarray
    basis: list[str | None]
    note: list[str | None]
    max_batch_size: np.ndarray


@dataclass
class Reference:
    """What an hour of work is measured on, and one run's time there (h; None = no runs)."""

    label: str
    run_hours: float | None


def _benchmark_speed(
    snap: CatalogView, req: CompareRequest, trail: Trail, scaling: Scaling
) -> tuple[GpuSpeed, Reference]:
    """Seconds per GPU from :func:`benchmark_time` (the rule ``/v1/run-cost`` uses), as
    hours per hour of the reference's work."""
    w = req.workload
    bench = snap.benchmark(w.benchmark)
    trail.cite(f"benchmark {bench.id}", bench.source, bench.as_of)
    results = snap.benchmark_results.get(bench.id, {})
    n = len(snap.gpus)
    seconds = np.full(n, np.nan)
    fits = np.full(n, -1, dtype=np.int8)
    basis: list[str | None] = [None] * n
    note: list[str | None] = [None] * n
    batch = np.zeros(n)
    reference = benchmark_reference(
        results, lambda gid: snap.gpus[snap.gpu_position[gid]] if gid in snap.gpu_position else None
    )
    if reference is None:
        raise CatalogGap(f"benchmark '{bench.id}' has no measured runtime in the catalog")
    for i, gpu in enumerate(snap.gpus):
        bt = benchmark_time(bench.id, results, reference, gpu)
        if bt.seconds is not None:
            seconds[i] = bt.seconds
        fits[i] = -1 if bt.fits is None else int(bt.fits)
        basis[i], note[i] = bt.basis, bt.note
        batch[i] = w.max_batch_size or bt.max_batch_size or 0
    if w.gpu:
        ref_gpu = snap.resolve_gpu(w.gpu)
        ref_i = snap.gpu_position[ref_gpu.id]
        if not math.isfinite(seconds[ref_i]):
            raise InvalidRequest(
                f"benchmark '{bench.id}' cannot be timed on the reference GPU {ref_gpu.id}"
                + (" (it runs out of memory)" if fits[ref_i] == 0 else "")
                + "; name another workload.gpu"
            )
    else:
        ref_gpu = reference[1]
        ref_i = snap.gpu_position[ref_gpu.id]
        trail.assume(
            "workload.gpu",
            ref_gpu.id,
            f"default reference: the GPU with the most memory bandwidth measured on {bench.id}",
        )
    ref_speedup = scaling.speedup(w.gpu_count)
    ref_s = seconds[ref_i] / ref_speedup
    hours = seconds * ref_speedup / seconds[ref_i]
    return (
        GpuSpeed(hours, fits, basis, note, batch),
        Reference(f"{w.gpu_count}x {ref_gpu.id} running {bench.id}", ref_s / 3600.0),
    )


def _relative_speed(
    snap: CatalogView, req: CompareRequest, trail: Trail, scaling: Scaling
) -> tuple[GpuSpeed, Reference]:
    """A runtime or GPU-hours on a reference GPU, scaled to every GPU by measured benchmark
    ratios where both ran the same benchmark, else by memory bandwidth; with no reference
    GPU, every GPU takes the same hours."""
    w = req.workload
    n = len(snap.gpus)
    run_h = w.runtime_s / 3600.0 if w.runtime_s is not None else None
    batch = np.full(n, float(w.max_batch_size or 0))
    if w.gpu is None:
        trail.assume(
            "workload.gpu",
            None,
            "no reference GPU: every option takes the same hours (name workload.gpu to scale "
            "by measured or estimated speed)",
        )
        return (
            GpuSpeed(np.ones(n), np.full(n, -1, dtype=np.int8), ["given"] * n, [None] * n, batch),
            Reference("the same hours on every option", run_h),
        )
    ref = snap.resolve_gpu(w.gpu)
    trail.cite(f"gpu {ref.id}: specs and TDP", ref.source, ref.as_of)
    by_bench = snap.runtimes_s
    hours = np.full(n, np.nan)
    basis: list[str | None] = [None] * n
    note: list[str | None] = [None] * n
    for i, gpu in enumerate(snap.gpus):
        try:
            ratio = speed(by_bench, ref, w.gpu_count, gpu, 1, scaling)
        except CatalogGap:
            note[i] = f"no benchmark or bandwidth to compare {gpu.id} with {ref.id}"
            continue
        hours[i] = ratio.time_factor
        basis[i] = "given" if gpu.id == ref.id else ratio.basis
        note[i] = None if gpu.id == ref.id else ratio.detail
    return (
        GpuSpeed(hours, np.full(n, -1, dtype=np.int8), basis, note, batch),
        Reference(f"{w.gpu_count}x {ref.id}", run_h),
    )


def _filter_gpus(snap: CatalogView, names: list[str]) -> set[str]:
    """GPU ids named by ``names``; a family name ('h100') means every GPU it matches."""
    ids: set[str] = set()
    for name in names:
        try:
            ids.add(snap.resolve_gpu(name).id)
        except Ambiguous as err:
            ids.update(err.extra["candidates"])
    return ids


def compute_compare(snap: CatalogView, req: CompareRequest, settings: Settings) -> CompareResult:
    """Rank every option; see :class:`CompareResult` and :func:`app.costing.vector.rank`."""
    trail = Trail()
    w = req.workload
    scaling = resolve_scaling(req)
    gpu_speed, ref = (
        _benchmark_speed(snap, req, trail, scaling)
        if w.benchmark
        else _relative_speed(snap, req, trail, scaling)
    )

    # Work per month, in hours on the reference.
    if req.gpu_hours_per_month is not None:
        ref_hours = req.gpu_hours_per_month
    elif req.runs_per_month is not None:
        ref_hours = req.runs_per_month * ref.run_hours  # type: ignore[operator]  (validated)
    else:
        usage = resolve_usage(snap, req, trail)
        ref_hours = usage.utilization * vector.HOURS_PER_MONTH
        trail.assume(
            "usage",
            f"{usage.utilization:g} x 730 h/month on {ref.label}",
            "utilization is the fraction of the month the reference is busy",
        )
    region = resolve_region(snap, req.region)
    rate = resolve_currency(snap, req, trail)
    price = request_electricity(snap, req, region, settings, trail, rate)
    ci_default = carbon_region(snap, region, settings, trail).carbon_intensity_g_per_kwh

    # Which options: masks over offers and builds.
    f = req.filters
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
        wanted = [snap.gpu_position[g] for g in _filter_gpus(snap, f.gpus)]
        o_keep &= np.isin(o_gpu, wanted)
        b_keep &= np.isin(b_gpu, wanted)
    gpu_fits = gpu_speed.fits.copy()
    if w.memory_gb is not None:
        enough = snap.gpu_memory_gb >= w.memory_gb
        gpu_fits = np.where(~enough, 0, gpu_fits).astype(np.int8)
    need = memory_need(req.memory_preset, req.precision, trail)
    floors = [m for m in (f.min_gpu_memory_gb, need.required_gb if need else None) if m]
    if floors:
        min_memory = max(floors)
        o_keep &= snap.gpu_memory_gb[o_gpu] >= min_memory - 1e-9
        b_keep &= snap.gpu_memory_gb[b_gpu] >= min_memory - 1e-9
    oi, bi = np.flatnonzero(o_keep), np.flatnonzero(b_keep)
    considered = len(offers.offers) * f.include_cloud + len(builds.builds) * f.include_desktop

    # Arrays for the model: cloud offers first, then desktop builds.
    g = np.concatenate([o_gpu[oi], b_gpu[bi]])
    count = np.concatenate([offers.gpu_count[oi], builds.gpu_count[bi]])
    n_o, n_b = len(oi), len(bi)
    is_desk = np.concatenate([np.zeros(n_o, bool), np.ones(n_b, bool)])
    fits = gpu_fits[g]
    counts, where = np.unique(count, return_inverse=True)
    gain = np.array([scaling.speedup(int(n)) for n in counts])[where]
    tf = np.where(fits == 0, np.nan, gpu_speed.hours[g] / gain)
    overhead = np.ones(n_o + n_b)
    warnings: list[str] = []
    risk = None
    if req.spot is not None:
        s = req.spot
        risk = vector.InterruptionRisk(
            s.interruptions_per_hour,
            s.checkpoint_interval_min / 60.0,
            s.restart_overhead_min / 60.0,
            s.checkpoint_write_min / 60.0,
        )
        overhead[:n_o] = np.where(offers.spot[oi], risk.time_factor, 1.0)
        if math.isinf(risk.time_factor):
            warnings.append(
                "spot and interruptible offers are not costed: with these interruption, "
                "checkpoint and restart times the job would practically never finish"
            )
    ci = np.concatenate([offers.carbon_intensity_g_per_kwh[oi], np.full(n_b, np.nan)])
    ci = np.where(np.isnan(ci), ci_default, ci)
    opts = vector.Options(
        is_desktop=is_desk,
        price_usd_per_hour=np.concatenate([offers.price_usd_per_hour[oi], np.zeros(n_b)]),
        monthly_fee_usd=np.concatenate([offers.monthly_fee_usd[oi], np.zeros(n_b)]),
        included_hours_per_month=np.concatenate(
            [offers.included_hours_per_month[oi], np.zeros(n_b)]
        ),
        billing_increment_h=np.concatenate([offers.billing_increment_h[oi], np.zeros(n_b)]),
        billing_minimum_h=np.concatenate([offers.billing_minimum_h[oi], np.zeros(n_b)]),
        upfront_usd=np.concatenate([np.zeros(n_o), builds.upfront_usd[bi]]),
        power_w=np.concatenate(
            [snap.gpu_tdp_w[o_gpu[oi]] * offers.gpu_count[oi], builds.power_w[bi]]
        ),
        pue=np.concatenate([offers.pue[oi], np.ones(n_b)]),
        carbon_intensity_g_per_kwh=ci,
        time_factor=tf,
        overhead_factor=overhead,
        max_batch_size=gpu_speed.max_batch_size[g] * count,
    )
    work = vector.Workload(ref_hours, ref.run_hours, req.horizon_months, price)
    costs = vector.rank(opts, work)

    def ident(j: int) -> str:
        """Id of option j: the offer's, or the desktop build's."""
        return offers.offers[oi[j]].id if j < n_o else builds.builds[bi[j - n_o]].id

    def option(j: int, rank: int | None) -> CompareOption:
        gi = int(g[j])
        gpu = snap.gpus[gi]
        n = int(count[j])
        notes = [gpu_speed.note[gi]] if gpu_speed.note[gi] else []
        if n > 1 and math.isfinite(tf[j]):
            notes.append(MULTI_GPU_NOTE)
        if overhead[j] > 1:
            notes.append(f"spot: {overhead[j]:.4g} billed hours per useful hour (Daly 2006)")
        if is_desk[j]:
            build = builds.builds[bi[j - n_o]]
            label = f"desktop {n}x {gpu.name} in {build.barebone.id}"
            provider = pricing = region = None
            instance = build.barebone.id
            source = f"{build.barebone.source}; GPU: {gpu.price_new_source or gpu.source}"
            as_of = gpu.price_new_as_of or gpu.as_of
        else:
            offer = offers.offers[oi[j]]
            label = (
                f"{offer.provider} {offer.instance_type}"
                + (f" {offer.region}" if offer.region else "")
                + f" ({offer.pricing_model})"
            )
            provider, pricing, region = str(offer.provider), offer.pricing_model, offer.region
            instance = offer.instance_type
            source, as_of = offer.source, offer.as_of
        costed = math.isfinite(costs.total_cost_usd[j])

        def val(a: np.ndarray) -> float | None:
            x = float(a[j])
            return sig8(x) if costed and math.isfinite(x) else None

        return CompareOption(
            rank=rank,
            id=ident(j),
            label=label,
            kind="desktop" if is_desk[j] else "cloud",
            provider=provider,
            instance_type=instance,
            pricing_model=pricing,
            region=region,
            gpu_id=gpu.id,
            gpu_count=n,
            gpu_memory_gb=gpu.memory_gb,
            fits=None if fits[j] < 0 else bool(fits[j]),
            time_factor=sig8(float(tf[j])) if math.isfinite(tf[j]) else None,
            runtime_basis=gpu_speed.basis[gi],
            runtime_s=sig8(ref.run_hours * tf[j] * 3600.0)
            if ref.run_hours is not None and math.isfinite(tf[j])
            else None,
            price_usd_per_hour=val(costs.effective_usd_per_hour),
            monthly_fee_usd=float(opts.monthly_fee_usd[j]),
            upfront_usd=sig8(float(opts.upfront_usd[j])),
            interruption_overhead=sig8(float(overhead[j])),
            busy_hours_per_month=val(costs.busy_hours_per_month),
            cost_usd_per_month=val(costs.cost_usd_per_month),
            total_cost_usd=val(costs.total_cost_usd),
            total_cost_in_currency=in_currency(val(costs.total_cost_usd), rate),
            run_cost_usd=val(costs.run_cost_usd),
            cost_per_run_usd=val(costs.cost_per_run_usd),
            cost_per_batch_item_usd=val(costs.cost_per_batch_item_usd),
            energy_kwh=val(costs.energy_kwh),
            co2e_kg=val(costs.co2e_kg),
            carbon_intensity_g_per_kwh=float(ci[j]),
            break_even_days=round(float(costs.break_even_days[j]), 2)
            if math.isfinite(costs.break_even_days[j])
            else None,
            other_regions=int(others[j]),
            note="; ".join(notes) or None,
            source=source,
            as_of=as_of.isoformat() if as_of else None,
        )

    order = costs.order
    ranked_total = len(order)
    others = np.zeros(n_o + n_b, dtype=np.int64)
    if f.cheapest_region_only and len(order):
        # Desktops get their own family numbers after the offers'.
        family = np.concatenate(
            [offers.family[oi], offers.family.max(initial=0) + 1 + np.arange(n_b)]
        )
        fam = family[order]
        _, first, counts = np.unique(fam, return_index=True, return_counts=True)
        keep = np.sort(first)
        others[order[first]] = counts - 1
        order = order[keep]
    listed = [option(int(j), r + 1) for r, j in enumerate(order[: req.limit])]
    unfit = np.flatnonzero(fits == 0)
    if f.include_unfit and len(listed) < req.limit:
        listed += [option(int(j), None) for j in unfit[: req.limit - len(listed)]]
    desk_order = order[is_desk[order]]
    no_runtime = int(np.sum(~np.isfinite(tf) & (fits != 0)))

    warnings += [
        "desktops: the purchase is counted in full over the horizon (no resale value); cloud "
        "energy counts GPU power (TDP x count x PUE) only",
    ]
    is_spot = np.concatenate([offers.spot[oi], np.zeros(n_b, bool)])
    spot_ranked = int(np.sum(is_spot[order]))
    if risk is None and spot_ranked:
        warnings.append(
            f"{spot_ranked} spot or interruptible offers are priced as if never interrupted; "
            "give `spot` (interruptions per hour, checkpoint interval) to price re-done work"
        )
    if risk is not None and math.isfinite(risk.time_factor):
        trail.assume("spot.billed_hours_per_useful_hour", sig8(risk.time_factor), vector.DALY_2006)
    if ref.run_hours is None:
        trail.assume(
            "billing",
            "continuous",
            "a GPU-hours workload is billed as whole sessions, without per-run rounding",
        )
    trail.assume(
        "horizon_months",
        req.horizon_months,
        "requested"
        if "horizon_months" in req.model_fields_set
        else f"default: {SEED_001}, 'if you do deep learning for more than a year, buy a desktop'",
    )
    age, stale = _listed_price_age(settings, snap, listed, trail)
    if stale:
        warnings.append(
            f"{len(stale)} of the {age.prices_used} catalog prices behind the listed options "
            f"are older than {age.max_age_days} days (oldest: {age.oldest_price}, dated "
            f"{age.oldest_price_date}); see `prices`"
        )
    scaling.note(trail, [w.gpu_count, *(o.gpu_count for o in listed)])
    return CompareResult(
        currency_rate=currency_rate(rate),
        reference=ref.label,
        reference_hours_per_month=sig8(ref_hours),
        runs_per_month=sig8(work.runs_per_month),
        horizon_months=req.horizon_months,
        electricity_price_usd_per_kwh=price,
        best_id=listed[0].id if len(order) else None,
        best_cloud_id=ident(costs.best_cloud) if costs.best_cloud >= 0 else None,
        best_desktop_id=ident(int(desk_order[0])) if len(desk_order) else None,
        summary=CompareSummary(
            considered=int(considered),
            ranked=ranked_total,
            filtered_out=int(considered - n_o - n_b),
            does_not_fit=len(unfit),
            no_runtime=no_runtime,
            over_capacity=int(costs.over_capacity.sum()),
            other_regions=int(ranked_total - len(order)),
        ),
        options=listed,
        warnings=warnings,
        assumptions=trail.assumptions,
        sources=trail.sources,
        prices=age,
    )


def _listed_price_age(
    settings: Settings,
    snap: CatalogView,
    listed: list[CompareOption],
    trail: Trail,
) -> tuple[PriceAge, list[str]]:
    """Age of the catalog prices behind the listed options (each offer's price, each
    desktop's GPU and barebone prices) and of those the trail noted (electricity)."""
    builds = {b.id: b for b in snap.builds.builds}
    prices: dict[str, dt.date] = dict(trail.prices)
    for opt in listed:
        offer = snap.offer_by_id.get(opt.id)
        build = builds.get(opt.id)
        if offer is not None:
            prices[f"offer {offer.id}"] = offer.as_of
        elif build is not None:
            if build.gpu.price_new_as_of is not None:
                prices[f"gpu {build.gpu.id}: price_new_usd"] = build.gpu.price_new_as_of
            prices[f"barebone {build.barebone.id}"] = build.barebone.as_of
    return price_age(snap, settings, prices)


# ------------------------------------------------------------------------------------------
# Break-even sweep
# ------------------------------------------------------------------------------------------

DEFAULT_UTILIZATIONS = tuple(round(0.01 * k, 2) for k in range(1, 101))


def compute_sweep(view: CatalogView, req: SweepRequest, settings: Settings) -> SweepResult:
    """Break-even days over utilization x electricity price; see :class:`SweepResult`."""
    trail = Trail()
    desk = resolve_desktop(view, req.desktop, trail, with_resale=False)
    d = req.desktop
    if (d.resell_after_years, d.resale_value_usd, d.resale_value) != (None, None, None):
        trail.assume(
            "desktop.resale_value_usd",
            0,
            "the sweep's totals count no resale (use /v1/break-even for resale and TCO)",
        )
    cloud = resolve_cloud(view, req.cloud, trail)
    utilizations = req.utilizations or list(DEFAULT_UTILIZATIONS)
    if req.electricity_prices_usd_per_kwh:
        prices = req.electricity_prices_usd_per_kwh
    else:
        region = resolve_region(view, req.region)
        prices = [resolve_electricity(view, None, region, settings, trail)]
    perf = cloud_speed(view, req.normalize_performance, desk, cloud, trail)
    factor = perf.time_factor if perf else 1.0
    if perf:
        trail.assume("cloud_time_factor", sig8(factor), perf.detail)
    grid = vector.break_even_grid(
        desk.desktop,
        cloud.rate,
        np.array(utilizations),
        np.array(prices),
        idle_on_fraction=req.desktop.idle_on_fraction or 0.0,
        cloud_time_factor=factor,
        horizon_days=req.horizon_days,
    )
    return SweepResult(
        utilizations=utilizations,
        electricity_prices_usd_per_kwh=prices,
        break_even_days=[
            [round(float(d), 2) if math.isfinite(d) else None for d in row] for row in grid.days
        ],
        desktop_total_usd=[[sig8(float(x)) for x in row] for row in grid.desktop_total_usd],
        cloud_total_usd=[sig8(float(x)) for x in grid.cloud_total_usd],
        horizon_days=req.horizon_days,
        upfront_usd=sig8(desk.desktop.upfront_usd),
        cloud_price_usd_per_hour=cloud.rate.price_usd_per_hour,
        cloud_time_factor=sig8(factor),
        assumptions=trail.assumptions,
        sources=trail.sources,
        **trail.price_fields(view, settings),
    )
