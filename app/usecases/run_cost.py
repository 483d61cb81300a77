"""Per-run cost (``POST /v1/run-cost``): :func:`resolve` turns the request into a
:class:`RunCostScenario` (the workload's runtime on each option, each option's price, power,
grid and embodied carbon, every default stated once), :func:`compose` prices one run on each
option from it with the pure model."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from app import costing
from app.catalog.view import CatalogView
from app.costing import ownership as own
from app.costing.money import USD, ExchangeRate
from app.costing.sourced import Cited, Note, Priced, Sourced
from app.errors import InvalidRequest
from app.models.inputs import CloudSpec
from app.models.run_cost import RunCostRequest, RunCostResult, RunOption, RunOptionResult
from app.settings import Settings
from app.steps.cloud_offer import ResolvedCloud, gpu_or_none, offer_label, resolve_cloud
from app.steps.currency import resolve_currency
from app.steps.demand import resolve_usage
from app.steps.desktop import resolve_desktop
from app.steps.embodied import cloud_embodied, desktop_embodied
from app.steps.llm import LlmRun, resolve_run, time_on
from app.steps.memory import MemoryNeed, check_memory, memory_need
from app.steps.scaling import DEFAULT_SCALING, Scaling, note_scaling, resolve_scaling
from app.steps.site import carbon_region, request_electricity, resolve_region
from app.steps.speed import (
    SpeedEvidence,
    benchmark_reference,
    benchmark_time,
    speed,
    speed_evidence,
)
from app.steps.trail import (
    Provenance,
    currency_rate,
    in_currency,
    note_launch_overhead,
    price_rule,
    sig8,
)

if TYPE_CHECKING:
    from app.models import Gpu, Region


@dataclass(frozen=True)
class _Runtime:
    """Runtime of one run on an option: ``seconds`` (s, None when it does not fit or is
    unknown), ``basis`` (`benchmark`, `given`, `estimate`), ``fits`` (None = unknown),
    ``max_batch_size`` (items, per GPU x count) and a ``note`` saying how it was obtained."""

    seconds: float | None
    basis: str | None
    fits: bool | None
    max_batch_size: int | None
    note: str | None


def _llm_runtime(run: LlmRun, gpu: Gpu, count: int) -> _Runtime:
    """A language-model job on ``count`` x ``gpu`` (:func:`app.steps.llm.time_on`)."""
    t = time_on(run, gpu, count)
    basis = None if t.fits and t.seconds is None else "estimate"
    return _Runtime(t.seconds, basis, t.fits, None, t.note)


@dataclass
class _RunContext:
    """What one run-cost request resolves once and every option reuses."""

    req: RunCostRequest
    usage: costing.Usage
    electricity_price_usd_per_kwh: float
    carbon: Region
    bench_results: dict[str, Any]  # this benchmark's results by GPU id
    bench_reference: tuple[Any, Gpu] | None  # (result, GPU) with the highest bandwidth
    ref_gpu: Gpu | None  # the GPU `runtime_s` was measured on
    evidence: SpeedEvidence  # the view's speed evidence
    scaling: Scaling = DEFAULT_SCALING  # multi-GPU speed-ups
    rate: ExchangeRate = USD  # the answer's currency
    memory: MemoryNeed | None = None  # the workload's memory need, when a preset is named
    llm: LlmRun | None = None  # a language-model workload, resolved


def _runtime_on(ctx: _RunContext, gpu: Gpu, count: int) -> _Runtime:
    """Runtime of one run on ``count`` x ``gpu``: measured, given, or estimated (and said)."""
    w = ctx.req.workload
    if ctx.llm is not None:
        return _llm_runtime(ctx.llm, gpu, count)
    if w.benchmark:
        bt = benchmark_time(w.benchmark, ctx.bench_results, ctx.bench_reference, gpu, ctx.evidence)
        batch = w.max_batch_size or bt.max_batch_size
        note = bt.note
        gain = ctx.scaling.speedup(count)
        if bt.seconds is not None and count > 1:
            note = "; ".join(
                filter(
                    None,
                    [
                        note,
                        f"{count} GPUs run {gain:.4g}x as fast as one ({ctx.scaling.model} scaling)",
                    ],
                )
            )
        return _Runtime(
            None if bt.seconds is None else bt.seconds / gain,
            bt.basis,
            bt.fits,
            batch * count if batch else None,
            note,
        )
    runtime = w.runtime_s or 0.0
    ref_gpu = ctx.ref_gpu
    if ref_gpu is None:
        return _Runtime(
            runtime,
            "given",
            None,
            w.max_batch_size,
            "runtime taken as given on every option (no workload GPU named)",
        )
    ratio = speed(ctx.evidence, ref_gpu, w.gpu_count, gpu, count, ctx.scaling)
    basis = "given" if ref_gpu.id == gpu.id and count == w.gpu_count else ratio.basis
    return _Runtime(
        runtime * ratio.time_factor,
        basis,
        None,
        w.max_batch_size * count if w.max_batch_size else None,
        None if basis == "given" else ratio.detail,
    )


# An option that is not costed (no runtime) carries no embodied carbon.
_NO_EMBODIED = own.Embodied(0.0, 0.0, 0.0)


@dataclass(frozen=True)
class OptionScenario:
    """One option with every input explicit: its ``label``, the ``gpu`` and ``gpu_count``,
    the run's ``runtime`` on it, either the owned ``desktop`` (purchase, resale folded in,
    lifetime = holding period) or the rented ``cloud`` side, the grid intensity
    (gCO2e/kWh) its energy is drawn from, the hardware's embodied carbon and, for rented
    GPUs, the server life (years) it is spread over."""

    label: str
    gpu: Gpu
    gpu_count: int
    runtime: _Runtime
    desktop: costing.Desktop | None
    cloud: ResolvedCloud | None
    carbon_intensity_g_per_kwh: float
    embodied: own.Embodied
    embodied_life_years: float
    oldest_price: Priced | None = None


@dataclass(frozen=True)
class RunCostScenario:
    """A run-cost request with every input explicit: the workload (as given), the answer's
    currency, usage, the desktops' electricity price (USD/kWh), the options in request order,
    the workload's memory need and the GPUs it is checked on, and the notes."""

    workload: dict[str, Any]
    items: int | None
    rate: ExchangeRate
    usage: costing.Usage
    electricity_price_usd_per_kwh: float
    options: tuple[OptionScenario, ...]
    memory: MemoryNeed | None
    memory_gpus: tuple[Gpu | None, ...]
    provenance: Provenance
    launch_overhead_s: float = 0.0


def compute_run_cost(view: CatalogView, req: RunCostRequest, settings: Settings) -> RunCostResult:
    """Per-option cost of one run; see :class:`RunCostResult`."""
    return compose(resolve(view, req, settings))


def resolve(view: CatalogView, req: RunCostRequest, settings: Settings) -> RunCostScenario:
    """The scenario of ``req`` over ``view``: 404 for unknown catalog names, 422 for an
    option that cannot be costed (a desktop without a GPU)."""
    notes: list[Note] = []
    w = req.workload
    bench_results: dict[str, Any] = {}
    bench_reference = None
    if w.benchmark:
        bench = view.benchmark(w.benchmark)
        notes.append(Cited(f"benchmark {bench.id}", bench.source, bench.as_of))
        bench_results = {r.gpu_id: r for r in view.results_of(bench.id)}
        bench_reference = benchmark_reference(bench_results, view.gpu)
    ref_gpu, noted = gpu_or_none(view, w.gpu)
    notes += noted
    region = resolve_region(view, req.region)
    rate, noted = resolve_currency(view, req)
    notes += noted
    usage, noted = resolve_usage(view, req)
    notes += noted
    price, noted = request_electricity(view, req, region, settings, rate)
    notes += noted
    carbon, noted = carbon_region(view, region, settings)
    notes += noted
    memory, noted = memory_need(req.memory_preset, req.precision)
    notes += noted
    llm = None
    if w.llm is not None:
        llm, noted = resolve_run(view, w.llm)
        notes += noted
    ctx = _RunContext(
        req=req,
        usage=usage,
        electricity_price_usd_per_kwh=price,
        carbon=carbon,
        bench_results=bench_results,
        bench_reference=bench_reference,
        ref_gpu=ref_gpu,
        evidence=speed_evidence(view),
        scaling=resolve_scaling(req),
        rate=rate,
        memory=memory,
        llm=llm,
    )
    resolved = []
    for i, opt in enumerate(req.options):
        option, noted = _resolve_option(view, ctx, opt, i)
        notes += noted
        resolved.append(option)
    options = tuple(resolved)
    notes += note_scaling(ctx.scaling, [w.gpu_count, *(o.gpu_count for o in options)]).notes
    launch_overhead_s, noted = _launch_overhead_s(req, options)
    notes += noted
    return RunCostScenario(
        workload=w.model_dump(exclude_none=True),
        items=w.items,
        rate=rate,
        usage=ctx.usage,
        electricity_price_usd_per_kwh=ctx.electricity_price_usd_per_kwh,
        options=options,
        memory=ctx.memory,
        memory_gpus=(ref_gpu, *(o.gpu for o in options)),
        provenance=Provenance(tuple(notes), price_rule(view, settings)),
        launch_overhead_s=launch_overhead_s,
    )


def _launch_overhead_s(
    req: RunCostRequest,
    options: tuple[OptionScenario, ...],
) -> Sourced[float]:
    """The billed launch overhead of a cloud run, s (stated when a cloud option is costed)."""
    if any(o.cloud is not None for o in options):
        return note_launch_overhead(
            req,
            "`cost_with_launch_usd` bills it with each cloud run, `cost_usd` is the run alone "
            "(seed 004's figure)",
        )
    return Sourced(req.launch_overhead_min * 60.0)


def _resolve_option(
    view: CatalogView, ctx: _RunContext, opt: RunOption, i: int
) -> Sourced[OptionScenario]:
    """One option's inputs: its hardware, the run's runtime on it, its grid and embodied carbon."""
    if opt.desktop is not None:
        return _resolve_desktop_option(view, ctx, opt, i)
    notes: list[Note] = []
    if opt.offer_id is not None:
        cloud, noted = resolve_cloud(view, CloudSpec(offer_id=opt.offer_id))
        notes += noted
        label = offer_label(cloud.offer)
    else:
        spec = CloudSpec(
            price_usd_per_hour=opt.price_usd_per_hour, gpu=opt.gpu, gpu_count=opt.gpu_count
        )
        cloud, noted = resolve_cloud(view, spec, rate=ctx.rate)
        notes += noted
        label = f"{cloud.gpu_count}x {cloud.gpu.id} at ${opt.price_usd_per_hour:g}/h"
    gpu, count = cloud.gpu, cloud.gpu_count or 1
    runtime = _runtime_on(ctx, gpu, count)
    embodied, life = (None, 0.0)
    if runtime.seconds is not None:
        (embodied, life), noted = cloud_embodied(view, count, gpu)
        notes += noted
    option = OptionScenario(
        label=label,
        gpu=gpu,
        gpu_count=count,
        runtime=runtime,
        desktop=None,
        cloud=cloud,
        carbon_intensity_g_per_kwh=(cloud.region or ctx.carbon).carbon_intensity_g_per_kwh,
        embodied=embodied or _NO_EMBODIED,
        embodied_life_years=life,
        oldest_price=oldest_priced(notes),
    )
    return Sourced(option, tuple(notes))


def _resolve_desktop_option(
    view: CatalogView, ctx: _RunContext, opt: RunOption, i: int
) -> Sourced[OptionScenario]:
    """A desktop option's inputs; its resale (if any) folded into the owned machine, whose
    lifetime becomes the holding period."""
    notes: list[Note] = []
    desk, noted = resolve_desktop(view, opt.desktop, prefix=f"options[{i}].desktop", rate=ctx.rate)
    notes += noted
    if desk.gpu is None:
        raise InvalidRequest(f"options[{i}].desktop: name the gpu to cost a run")
    runtime = _runtime_on(ctx, desk.gpu, desk.desktop.gpu_count)
    owned = desk.desktop
    if desk.resale is not None:
        owned = replace(owned, resale_usd=desk.resale.value_usd, lifetime_years=desk.horizon_years)
    embodied = _NO_EMBODIED
    if runtime.seconds is not None:
        embodied, noted = desktop_embodied(view, owned.gpu_count, desk.gpu)
        notes += noted
    option = OptionScenario(
        label=f"desktop {owned.gpu_count}x {desk.gpu.id}",
        gpu=desk.gpu,
        gpu_count=owned.gpu_count,
        runtime=runtime,
        desktop=owned,
        cloud=None,
        carbon_intensity_g_per_kwh=ctx.carbon.carbon_intensity_g_per_kwh,
        embodied=embodied,
        embodied_life_years=owned.lifetime_years,
        oldest_price=oldest_priced(notes),
    )
    return Sourced(option, tuple(notes))


def compose(s: RunCostScenario) -> RunCostResult:
    """The answer to scenario ``s``, from it alone."""
    options = [
        _desktop_option(s, o) if o.desktop is not None else _cloud_option(s, o) for o in s.options
    ]
    memory, warnings = check_memory(s.memory, list(s.memory_gpus)) if s.memory else (None, [])
    return RunCostResult(
        workload=s.workload,
        options=options,
        currency_rate=currency_rate(s.rate),
        memory=memory,
        **s.provenance.fields(warnings_first=warnings),
    )


# A run that cannot be timed (does not fit, or no runtime) is listed without cost figures.
_UNCOSTED: dict[str, Any] = dict(
    cost_usd=None,
    energy_kwh=None,
    co2e_kg=None,
    embodied_co2e_kg=None,
    cost_in_currency=None,
    cost_per_item_in_currency=None,
    cost_per_item_usd=None,
)


def oldest_priced(notes: list[Note]) -> Priced | None:
    """The oldest dated catalog price among ``notes`` (ties: the first by name), or None."""
    dated = [n for n in notes if isinstance(n, Priced) and n.as_of is not None]
    return min(dated, key=lambda n: (n.as_of, n.what)) if dated else None


def _option_fields(o: OptionScenario, kind: str, offer_id: str | None) -> dict[str, Any]:
    """What every option's answer says of it, desktop or cloud: its label, kind, offer, GPU
    and count, and the run's fit, runtime (s), basis, batch size and note."""
    rt = o.runtime
    return dict(
        label=o.label,
        kind=kind,
        offer_id=offer_id,
        gpu_id=o.gpu.id,
        gpu_count=o.gpu_count,
        fits=rt.fits,
        runtime_s=sig8(rt.seconds),
        runtime_basis=rt.basis,
        max_batch_size=rt.max_batch_size,
        note=rt.note,
        oldest_price=o.oldest_price.what if o.oldest_price else None,
        oldest_price_date=o.oldest_price.as_of if o.oldest_price else None,
    )


def _desktop_option(s: RunCostScenario, o: OptionScenario) -> RunOptionResult:
    """A desktop option: marginal (electricity) and fully-loaded (purchase amortized over the
    owned busy hours, net of resale) cost of one run."""
    rt, owned, rate = o.runtime, o.desktop, s.rate
    base = _option_fields(o, "desktop", None) | {"billed_s": None}
    if rt.seconds is None or owned is None:
        return RunOptionResult(
            **base,
            **_UNCOSTED,
            price_usd_per_hour=None,
            marginal_cost_usd=None,
            cost_per_batch_item_usd=None,
        )
    run = costing.desktop_run_cost(rt.seconds, owned, s.usage, s.electricity_price_usd_per_kwh)
    hourly = run.fully_loaded_cost_usd / (rt.seconds / 3600.0)
    share = own.owned_share_of_run(rt.seconds / 3600.0, owned.lifetime_years, s.usage.utilization)
    per_item = costing.cost_per_item_usd(run.fully_loaded_cost_usd, s.items) if s.items else None
    return RunOptionResult(
        **base,
        price_usd_per_hour=sig8(hourly),
        cost_usd=sig8(run.fully_loaded_cost_usd),
        cost_with_launch_usd=sig8(run.fully_loaded_cost_usd),
        marginal_cost_usd=sig8(run.marginal_cost_usd),
        energy_kwh=sig8(run.energy_kwh),
        co2e_kg=sig8(costing.co2e_kg(run.energy_kwh, o.carbon_intensity_g_per_kwh)),
        embodied_co2e_kg=sig8(o.embodied.co2e_kg * share),
        cost_in_currency=in_currency(run.fully_loaded_cost_usd, rate),
        cost_per_item_in_currency=in_currency(per_item, rate),
        cost_per_batch_item_usd=sig8(costing.cost_per_batch_item_usd(hourly, rt.max_batch_size))
        if rt.max_batch_size
        else None,
        cost_per_item_usd=sig8(per_item),
    )


def _cloud_option(s: RunCostScenario, o: OptionScenario) -> RunOptionResult:
    """A cloud option: billed time (increments, minimum) x price; (GPU + host) energy x PUE."""
    rt, cloud = o.runtime, o.cloud
    assert cloud is not None  # resolved as a cloud option
    price = cloud.rate.price_usd_per_hour
    base = _option_fields(o, "cloud", cloud.offer.id if cloud.offer else None) | dict(
        price_usd_per_hour=price,
        marginal_cost_usd=None,
        cost_per_batch_item_usd=sig8(costing.cost_per_batch_item_usd(price, rt.max_batch_size))
        if rt.max_batch_size
        else None,
    )
    if rt.seconds is None:
        return RunOptionResult(**base, **_UNCOSTED, billed_s=None)
    run = costing.cloud_run_cost(rt.seconds, cloud.rate)
    launched = costing.cloud_run_cost(rt.seconds + s.launch_overhead_s, cloud.rate)
    power = o.gpu.tdp_w * o.gpu_count + cloud.host_power_w
    energy = costing.energy_kwh(power, rt.seconds / 3600.0, cloud.pue)
    per_item = costing.cost_per_item_usd(run.cost_usd, s.items) if s.items else None
    share = own.rented_share(rt.seconds / 3600.0, o.embodied_life_years)
    return RunOptionResult(
        **base,
        billed_s=sig8(run.billed_s),
        cost_usd=sig8(run.cost_usd),
        cost_with_launch_usd=sig8(launched.cost_usd),
        energy_kwh=sig8(energy),
        co2e_kg=sig8(costing.co2e_kg(energy, o.carbon_intensity_g_per_kwh)),
        embodied_co2e_kg=sig8(o.embodied.co2e_kg * share),
        cost_in_currency=in_currency(run.cost_usd, s.rate),
        cost_per_item_in_currency=in_currency(per_item, s.rate),
        cost_per_item_usd=sig8(per_item),
    )
