"""An LLM job's memory, time and cost on each GPU (``POST /v1/llm/estimate``) and the model
catalog (``GET /v1/llm/models``). :func:`resolve` turns the request into an
:class:`LlmScenario` (the model's shape, the job with every default stated, the GPUs, the
owner's usage and electricity price); :func:`compose` sizes, times and prices the job on each
GPU with :mod:`app.costing.llm` and the shared offer and desktop rules."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from app import costing
from app.catalog.sources.hosted_prices import SNAPSHOT_AS_OF, HostedPrice, hosted_prices
from app.catalog.sources.hosted_prices import source as hosted_source
from app.catalog.view import CatalogView
from app.costing import defaults, llm_serving, offers
from app.costing import llm as L
from app.costing.llm_engine import Engine
from app.costing.sourced import Assumed, Caveat, Cited, Note, Priced, Sourced
from app.errors import CatalogGap, InvalidRequest
from app.models.inputs import DesktopSpec
from app.models.llm import (
    LlmCloudCost,
    LlmEstimateRequest,
    LlmEstimateResult,
    LlmGpuEstimate,
    LlmModelPublic,
    LlmModelsPublic,
    LlmOwnedCost,
    LlmServing,
    MemoryBreakdown,
)
from app.settings import Settings
from app.steps.cloud_offer import COMPARABLE_RULE, comparable_offer_by_gpu
from app.steps.currency import resolve_currency
from app.steps.demand import resolve_usage
from app.steps.desktop import ResolvedDesktop, resolve_desktop
from app.steps.llm import (
    job_mfu,
    job_speed,
    resolve_job,
    serving_share,
    stated,
    utilizations,
)
from app.steps.llm_energy import LlmSite, RentedPower, rented_power_w, resolve_site
from app.steps.site import request_electricity, resolve_region
from app.steps.trail import Provenance, price_rule, sig8
from app.usecases.llm_serving import (
    SERVING_COST_RULE,
    ServedJob,
    hosted_apis,
    pick_concurrency,
    serving_row,
)

if TYPE_CHECKING:
    from app.models import CloudOffer, Gpu


def list_models(view: CatalogView) -> LlmModelsPublic:
    """Every catalog model with its shape and sources."""
    rows = [
        LlmModelPublic(
            id=m.id,
            name=m.name,
            aliases=list(m.aliases),
            family=m.family,
            hf_repo=m.hf_repo,
            params_b=m.params / 1e9,
            active_params_b=m.active_params / 1e9,
            layers=m.arch.layers,
            hidden_size=m.arch.hidden_size,
            intermediate_size=m.arch.intermediate_size,
            heads=m.arch.heads,
            kv_heads=m.arch.kv_heads,
            head_dim=m.arch.head_dim,
            vocab_size=m.arch.vocab_size,
            context_length=m.arch.context_length,
            experts=m.arch.experts,
            experts_per_token=m.arch.experts_per_token,
            config_source=m.config_source,
            params_source=m.params_source,
            as_of=m.as_of,
        )
        for m in view.llm_models.values()
    ]
    return LlmModelsPublic(data=rows, count=len(rows))


@dataclass(frozen=True)
class LlmScenario:
    """The request with every input explicit: the ``job``, its ``label`` (the model as
    resolved), ``gpus`` to answer for and ``gpu_count``, ``mfu``/``mbu``, the per-GPU
    ``overhead_gb``, the serving engine's ``memory_utilization`` (inference; None: training), the owner's ``usage`` and electricity price (USD/kWh), the grid and
    datacenter energy is counted at (``site``), whether only memory is asked (no tokens:
    ``memory_only``), the job's ``memory``, each GPU's choices
    (``per_gpu``) and what it rests on."""

    job: L.Job
    label: dict[str, Any]
    gpus: tuple[Gpu, ...]
    gpu_count: int
    mfu: float | None
    mbu: float
    overhead_gb: float
    memory_utilization: float | None
    tokens_per_day: float | None
    concurrency: int | None
    hosted: tuple[HostedPrice, ...]
    usage: costing.Usage
    electricity_price_usd_per_kwh: float
    site: LlmSite
    memory_only: bool
    memory: L.Memory
    per_gpu: tuple[GpuChoice, ...]
    provenance: Provenance


@dataclass(frozen=True)
class GpuChoice:
    """What one GPU's estimate rests on: the fewest GPUs that hold the job (``need``, None:
    none), the count timed and priced (``count``: the request's when it fits, else ``need``),
    the cheapest comparable offer (None: none, or nothing to time) and the owned desktop of
    ``count`` of it (None: the catalog cannot build one), and the power ``count`` of it draw
    rented, and their host (0 when nothing is timed)."""

    gpu: Gpu
    need: int | None
    count: int | None
    offer: CloudOffer | None
    owned: ResolvedDesktop | None
    rented_power: RentedPower = RentedPower()


def compute_llm_estimate(
    view: CatalogView, req: LlmEstimateRequest, settings: Settings
) -> LlmEstimateResult:
    """See :class:`LlmEstimateResult`."""
    return compose(resolve(view, req, settings))


def resolve(view: CatalogView, req: LlmEstimateRequest, settings: Settings) -> LlmScenario:
    """The scenario of ``req`` over ``view`` (see :func:`resolve_job` for the 422s)."""
    notes: list[Note] = []
    served = req.tokens_per_day is not None
    (job, label), noted = resolve_job(
        view, req.model_copy(update={"tokens": req.tokens_per_day}) if served else req
    )
    notes += noted
    hosted: tuple[HostedPrice, ...] = ()
    if served:  # the batch is each GPU's concurrency, stated instead of batch_size
        notes = [n for n in notes if not (isinstance(n, Assumed) and n.name == "batch_size")]
        label |= {"tokens_per_day": req.tokens_per_day, "batch_size": None}
        notes += _serving_notes(req)
        if req.model is not None:
            hosted = hosted_prices(view.resolve_llm(req.model).hf_repo)
            notes.append(Cited("hosted API prices", hosted_source(), SNAPSHOT_AS_OF))
    if req.gpus is not None:  # each GPU once, in the order first asked for
        gpus = tuple({g.id: g for g in (view.resolve_gpu(name) for name in req.gpus)}.values())
    else:
        gpus = tuple(g for g in view.gpus if g.fp16_tensor_tflops or g.bf16_tensor_tflops)
    region = resolve_region(view, req.region)
    rate, noted = resolve_currency(view, req)
    notes += noted
    (mfu, mbu), noted = utilizations(req)
    notes += noted
    memory_utilization, noted = serving_share(req, job.engine)
    notes += noted
    notes.append(
        Assumed(
            "cloud_price",
            "each GPU's comparable offer, per GPU-hour, any GPU count",
            f"{COMPARABLE_RULE}; instance price / its GPUs. An instance with more GPUs than the job "
            "needs runs it that much faster at the same cost under the linear FLOPs model "
            "(billing increments, minimums and multi-GPU losses not modelled)",
        )
    )
    overhead, noted = stated("framework_overhead_gb", None, defaults.LLM_OVERHEAD)
    notes += noted
    overhead_gb = float(overhead)
    usage, noted = resolve_usage(view, req)
    notes += noted
    price, noted = request_electricity(view, req, region, settings, rate)
    notes += noted
    site, noted = resolve_site(view, region, settings)
    notes += noted
    if job.task is L.Task.INFERENCE:
        notes += stated("decode_gpu_load", None, defaults.LLM_DECODE_GPU_LOAD).notes
    mem = L.memory(job)
    memory_only = req.tokens is None and not served
    if memory_only:
        notes.append(Assumed("tokens", None, MEMORY_ONLY))
    notes.append(Assumed("owned.desktop", OWNED_RULE, OWNED_SOURCES))
    chosen = []
    for g in gpus:
        choice, noted = _choose(view, mem, g, req.gpu_count, overhead_gb)
        notes += noted
        chosen.append(choice)
    per_gpu = tuple(chosen)
    return LlmScenario(
        job=job,
        label=label,
        gpus=gpus,
        gpu_count=req.gpu_count,
        mfu=mfu,
        mbu=mbu,
        overhead_gb=overhead_gb,
        memory_utilization=memory_utilization,
        tokens_per_day=req.tokens_per_day,
        concurrency=req.concurrency,
        hosted=hosted,
        usage=usage,
        electricity_price_usd_per_kwh=price,
        site=site,
        memory_only=memory_only,
        memory=mem,
        per_gpu=per_gpu,
        provenance=Provenance(tuple(notes), price_rule(view, settings)),
    )


MEMORY_ONLY = (
    "not given: the answer sizes memory only (which GPUs hold the job, how many); time, "
    "cost and energy need the tokens trained on or generated"
)
OWNED_RULE = (
    "the GPU count priced x the GPU's catalog price + the cheapest barebone of the newest "
    "priced year with that many slots, at the barebone's base power (else the default); each "
    "estimate's `owned` names its barebone, base power and lifetime"
)
OWNED_SOURCES = (
    f"the catalog's GPU and barebone prices; base power {defaults.BASE_POWER.source_text()}; "
    f"lifetime {defaults.LIFETIME.source_text()}"
)


AMD_CAVEAT = (
    "{gpu}: an AMD Instinct GPU runs PyTorch through ROCm; its time assumes the same share of "
    "peak (MFU) as NVIDIA GPUs reach, which no measured run in the catalog checks, and "
    "CUDA-only kernels (some 4-bit and attention kernels) need their ROCm builds"
)


def _serving_notes(req: LlmEstimateRequest) -> list[Note]:
    """What serving ``tokens_per_day`` assumes: the concurrency's rule and the cost bases."""
    notes: list[Note] = [Assumed("serving costs", "three billing bases", SERVING_COST_RULE)]
    if req.concurrency is None:
        notes.append(
            Assumed(
                "concurrency",
                "as many sequences as the KV cache holds (max_batch_size), at most "
                f"{defaults.LLM_MAX_NUM_SEQS.number:g}",
                defaults.LLM_MAX_NUM_SEQS.source_text(),
            )
        )
    return notes


def _choose(
    view: CatalogView,
    mem: L.Memory,
    gpu: Gpu,
    asked: int,
    overhead_gb: float,
) -> Sourced[GpuChoice]:
    """One GPU's count, offer and owned desktop; the offer's and desktop's prices and sources
    are noted in ``notes``."""
    notes: list[Note] = []
    need = mem.gpus_needed(gpu.memory_gb, overhead_gb)
    count = asked if need is not None and need <= asked else need
    if count is None:
        return Sourced(GpuChoice(gpu, need, None, None, None), tuple(notes))
    if gpu.vendor == "AMD":
        notes.append(Caveat(AMD_CAVEAT.format(gpu=gpu.id)))
    pick = comparable_offer_by_gpu(view).get(gpu.id)
    offer = pick.offer if pick is not None else None
    if offer is not None:
        notes.append(Priced(f"offer {offer.id}", offer.as_of))
    owned, noted = _owned_desktop(view, gpu, count)
    notes += noted
    power = rented_power_w(view, gpu, count)
    return Sourced(GpuChoice(gpu, need, count, offer, owned, power), tuple(notes))


def _owned_desktop(view: CatalogView, gpu: Gpu, count: int) -> Sourced[ResolvedDesktop | None]:
    """A desktop of ``count`` x ``gpu`` (catalog GPU price + cheapest barebone), or None when
    the catalog cannot build it, with its sources and price dates; its defaults are stated
    once (:data:`OWNED_RULE`) and per estimate (``owned``). Built once per view and count."""
    return view.memoized(
        f"llm_estimate.owned:{gpu.id}:{count}", lambda: _build_owned(view, gpu, count)
    )


def _build_owned(view: CatalogView, gpu: Gpu, count: int) -> Sourced[ResolvedDesktop | None]:
    try:
        built = resolve_desktop(view, DesktopSpec(gpu=gpu.id, gpu_count=count), with_resale=False)
    except (CatalogGap, InvalidRequest, ValueError):
        return Sourced(None)
    return Sourced(built.value, tuple(n for n in built.notes if isinstance(n, Cited | Priced)))


def _owned(s: LlmScenario, desk: ResolvedDesktop, runtime_s: float, load: float) -> LlmOwnedCost:
    """The job on the owned desktop ``desk``: electricity and amortized purchase, and its
    energy at the desktop's busy power, its GPUs at ``load`` x their power (an office: PUE 1),
    on the request region's grid."""
    desktop = replace(desk.desktop, gpu_power_w=desk.desktop.gpu_power_w * load)
    run = costing.desktop_run_cost(runtime_s, desktop, s.usage, s.electricity_price_usd_per_kwh)
    return LlmOwnedCost(
        barebone_id=desk.barebone.id if desk.barebone else None,
        base_power_w=desk.desktop.base_power_w,
        lifetime_years=desk.desktop.lifetime_years,
        upfront_usd=sig8(desk.desktop.upfront_usd),
        electricity_usd=sig8(run.marginal_cost_usd),
        amortized_purchase_usd=sig8(run.amortized_purchase_usd),
        cost_usd=sig8(run.fully_loaded_cost_usd),
        cost_usd_per_million_tokens=sig8(run.fully_loaded_cost_usd / s.job.tokens * 1e6),
        energy_kwh=sig8(run.energy_kwh),
        co2e_kg=sig8(costing.co2e_kg(run.energy_kwh, s.site.carbon_intensity_g_per_kwh)),
    )


def _rented_energy(
    s: LlmScenario, c: GpuChoice, runtime_s: float, load: float
) -> tuple[float, float]:
    """``(kWh, kg CO2e)`` of the job on ``c.count`` rented GPUs: their power at ``load`` of
    their full-load power, and their host's, x runtime x the datacenter's PUE, on the request region's grid."""
    energy = costing.energy_kwh(c.rented_power.at(load), runtime_s / 3600, s.site.pue)
    return energy, costing.co2e_kg(energy, s.site.carbon_intensity_g_per_kwh)


def _estimate(s: LlmScenario, c: GpuChoice) -> LlmGpuEstimate:
    gpu, mem, need, count = c.gpu, s.memory, c.need, c.count
    fits = need is not None and need <= s.gpu_count
    n = s.gpu_count
    breakdown = MemoryBreakdown(
        weights_gb=sig8(mem.weights / n / L.GB),
        gradients_gb=sig8(mem.gradients / n / L.GB),
        optimizer_gb=sig8(mem.optimizer / n / L.GB),
        activations_gb=sig8(mem.activations / n / L.GB),
        kv_cache_gb=sig8(mem.kv_cache / n / L.GB),
        framework_overhead_gb=s.overhead_gb,
    )
    room = (
        llm_serving.serving_room(s.job, count, gpu.memory_gb, s.overhead_gb, s.memory_utilization)
        if count is not None and s.memory_utilization is not None
        else None
    )
    picked = pick_concurrency(s.concurrency, room) if room and s.tokens_per_day else None
    job = replace(s.job, batch_size=picked[0]) if picked else s.job
    if count is None:
        speed, peak, note = None, None, "no number of GPUs holds it"
    elif s.memory_only:
        speed, peak, note = None, None, "memory only: no tokens given, so no time, cost or energy"
    elif s.tokens_per_day and picked is None:
        speed, peak, note = None, None, "the weights leave no KV cache room for one sequence"
    else:
        speed, peak, note = job_speed(job, gpu, count, s.mfu, s.mbu)
    cloud = owned = None
    energy: tuple[float, float] | None = None
    if speed is not None and count is not None:
        load = llm_serving.gpu_load(speed, defaults.LLM_DECODE_GPU_LOAD.number)
        energy = _rented_energy(s, c, speed.runtime_s, load)
        offer = c.offer
        if offer is not None:
            per_gpu = offers.price_per_gpu_hour(offer)
            rent = count * speed.runtime_s / 3600 * per_gpu
            cloud = LlmCloudCost(
                offer_id=offer.id,
                provider=offer.provider,
                price_usd_per_gpu_hour=sig8(per_gpu),
                cost_usd=sig8(rent),
                cost_usd_per_million_tokens=sig8(rent / s.job.tokens * 1e6),
                energy_kwh=sig8(energy[0]),
                co2e_kg=sig8(energy[1]),
            )
        owned = _owned(s, c.owned, speed.runtime_s, load) if c.owned is not None else None
    costs: list[float] = [c.cost_usd for c in (cloud, owned) if c is not None]
    cost: float | None = min(costs) if costs else None
    if owned is not None and cost == owned.cost_usd:
        energy = (owned.energy_kwh, owned.co2e_kg)
    return LlmGpuEstimate(
        gpu_id=gpu.id,
        memory_gb=gpu.memory_gb,
        memory_gb_per_gpu=sig8(mem.per_gpu_gb(n, s.overhead_gb)),
        memory_breakdown=breakdown,
        fits=fits,
        gpus_needed=need,
        gpus_priced=count,
        max_batch_size=room.max_batch if room else None,
        max_context_tokens=room.max_context if room else None,
        serving=_serving(s, c, picked) if picked and speed and count else None,
        peak_tflops=peak,
        mfu=sig8(job_mfu(s.job, gpu, s.mfu)) if speed else None,
        runtime_s=sig8(speed.runtime_s) if speed else None,
        tokens_per_s=sig8(speed.tokens_per_s) if speed else None,
        bound=speed.bound if speed and s.job.task is L.Task.INFERENCE else None,
        cloud=cloud,
        owned=owned,
        cost_usd=cost,
        cost_usd_per_million_tokens=sig8(cost / s.job.tokens * 1e6) if cost is not None else None,
        energy_kwh=sig8(energy[0]) if energy else None,
        co2e_kg=sig8(energy[1]) if energy else None,
        note=note or None,
    )


def _serving(s: LlmScenario, c: GpuChoice, picked: tuple[int, str]) -> LlmServing | None:
    assert s.tokens_per_day is not None and c.count is not None
    job = ServedJob(s.job, s.mfu, s.mbu, s.tokens_per_day, s.electricity_price_usd_per_kwh)
    desktop = c.owned.desktop if c.owned is not None else None
    return serving_row(job, c.gpu, c.count, c.offer, desktop, picked)


def compose(s: LlmScenario) -> LlmEstimateResult:
    """The answer to scenario ``s``, from it alone: fitting GPUs cheapest first, then the
    rest by memory."""
    rows = [_estimate(s, c) for c in s.per_gpu]
    rows.sort(
        key=lambda e: (
            not e.fits,
            e.cost_usd is None,
            e.cost_usd or 0.0,
            -(e.memory_gb or 0.0),
            e.gpu_id,
        )
    )
    flops = L.flops_per_token(s.job.task) * s.job.n_active * s.job.tokens
    if s.job.task is L.Task.INFERENCE:
        prompt = s.job.tokens / s.job.output_tokens * s.job.prompt_tokens
        flops = 2 * s.job.n_active * (s.job.tokens + prompt)
    label = s.label | {"gpu_count": s.gpu_count}
    if s.memory_utilization is not None and Engine(s.job.engine).takes_total_share:
        label["gpu_memory_utilization"] = s.memory_utilization
    if s.memory_only:
        label["tokens"] = None
    return LlmEstimateResult(
        model=label,
        flops=None if s.memory_only else sig8(flops),
        estimates=rows,
        hosted_apis=hosted_apis(s.hosted, s.job, s.tokens_per_day),
        **s.provenance.fields(),
    )
