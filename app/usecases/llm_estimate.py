"""An LLM job's memory, time and cost on each GPU (``POST /v1/llm/estimate``) and the model
catalog (``GET /v1/llm/models``). :func:`resolve` turns the request into an
:class:`LlmScenario` (the model's shape, the job with every default stated, the GPUs, the
owner's usage and electricity price); :func:`compose` sizes, times and prices the job on each
GPU with :mod:`app.costing.llm` and the shared offer and desktop rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app import costing
from app.catalog.view import CatalogView
from app.costing import defaults, offers
from app.costing import llm as L
from app.errors import CatalogGap, InvalidRequest
from app.models import CloudOffer, Gpu
from app.models.inputs import DesktopSpec
from app.models.llm import (
    LlmCloudCost,
    LlmEstimateRequest,
    LlmEstimateResult,
    LlmGpuEstimate,
    LlmModelPublic,
    LlmModelsPublic,
    LlmOwnedCost,
    LlmWorkload,
    MemoryBreakdown,
)
from app.settings import Settings
from app.steps.desktop import resolve_desktop
from app.steps.inputs import request_electricity, resolve_currency, resolve_region, resolve_usage
from app.steps.trail import Trail, sig8


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
    ``overhead_gb``, the owner's ``usage`` and electricity price (USD/kWh), the trail."""

    job: L.Job
    label: dict[str, Any]
    gpus: tuple[Gpu, ...]
    gpu_count: int
    mfu: float
    mbu: float
    overhead_gb: float
    usage: costing.Usage
    electricity_price_usd_per_kwh: float
    trail: Trail


def compute_llm_estimate(
    view: CatalogView, req: LlmEstimateRequest, settings: Settings
) -> LlmEstimateResult:
    """See :class:`LlmEstimateResult`."""
    return compose(resolve(view, req, settings), view, settings)


def _default(trail: Trail, name: str, given: Any, d: defaults.Default) -> Any:
    if given is not None:
        return given
    trail.assume(name, d.value, d.source_text())
    return d.value


def resolve_job(view: CatalogView, w: LlmWorkload, trail: Trail) -> tuple[L.Job, dict[str, Any]]:
    """The job ``w`` describes, every default stated: 422 for an unknown model (with the
    closest ids), a precision the task cannot run in, or a sequence longer than the model's
    context."""
    if w.model is not None:
        m = view.resolve_llm(w.model)
        trail.cite(f"model {m.id}: shape", m.config_source, m.as_of)
        trail.cite(f"model {m.id}: parameters", m.params_source, m.as_of)
        arch, params, active = m.arch, m.params, m.active_params
        label: dict[str, Any] = {"model": m.id, "name": m.name}
    else:
        a = w.architecture
        heads = a.heads
        if a.experts and not (0 < a.experts_per_token <= a.experts and a.moe_intermediate_size):
            raise InvalidRequest(
                "architecture: a mixture of experts needs 1 <= experts_per_token <= experts "
                "and moe_intermediate_size"
            )
        if a.kv_heads and heads % a.kv_heads:
            raise InvalidRequest("architecture: heads must be a multiple of kv_heads")
        arch = L.Architecture(
            a.layers,
            a.hidden_size,
            a.intermediate_size,
            heads,
            a.kv_heads or heads,
            a.head_dim or a.hidden_size // heads,
            a.vocab_size,
            a.context_length,
            a.tied_embeddings,
            a.experts,
            a.experts_per_token,
            a.shared_experts,
            a.moe_intermediate_size,
            a.dense_layers,
        )
        params = a.params_b * 1e9 if a.params_b else arch.total_params()
        active = a.active_params_b * 1e9 if a.active_params_b else arch.active_params()
        if a.experts == 0 and not a.active_params_b:
            active = params  # a dense model multiplies every weight
        label = {"model": "architecture"}
    task = L.Task(w.task)
    if w.precision is not None:
        precision = L.Precision(w.precision)
    elif task is L.Task.QLORA:
        precision = L.Precision.INT4
        trail.assume("precision", "int4", defaults.LLM_PRECISION.source_text())
    else:
        precision = L.Precision(_default(trail, "precision", None, defaults.LLM_PRECISION))
    L.check_precision(task, precision)
    prompt = output = 0
    if task is L.Task.INFERENCE:
        prompt = int(_default(trail, "prompt_tokens", w.prompt_tokens, defaults.LLM_PROMPT_TOKENS))
        output = int(_default(trail, "output_tokens", w.output_tokens, defaults.LLM_OUTPUT_TOKENS))
        seq = w.context_length or prompt + output
    elif w.context_length is not None:
        seq = w.context_length
    else:
        seq = min(int(defaults.LLM_SEQUENCE_LENGTH.number), arch.context_length)
        trail.assume("context_length", seq, defaults.LLM_SEQUENCE_LENGTH.source_text())
    if seq > arch.context_length:
        raise InvalidRequest(
            f"context_length {seq} tokens is longer than the model's {arch.context_length}"
        )
    batch = int(_default(trail, "batch_size", w.batch_size, defaults.LLM_BATCH_SIZE))
    rank = int(w.lora_rank or defaults.LORA_RANK.number)
    if task.adapters and w.lora_rank is None:
        trail.assume("lora_rank", rank, defaults.LORA_RANK.source_text())
    if task.trains:
        how = "full activation recomputation" if w.activation_checkpointing else "none"
        trail.assume("activation_checkpointing", how, defaults.LLM_CHECKPOINTING.source_text())
        trail.assume(
            "attention_kernel",
            "FlashAttention (no s x s scores stored)",
            "Dao et al. 2022, 'FlashAttention' (arXiv 2205.14135): memory linear in sequence "
            "length; PyTorch's scaled_dot_product_attention, transformers' default",
        )
        trail.assume(
            "optimizer",
            "Adam, mixed precision",
            "16 bytes per trained parameter: Rajbhandari et al. 2020 (ZeRO) §3.1; QLoRA "
            "adapters 12 (bf16 weights and gradients, paged 32-bit AdamW)",
        )
    job = L.Job(
        arch, task, precision, w.tokens, seq, batch, rank, w.activation_checkpointing,
        prompt, output, params, active,
    )  # fmt: skip
    label |= {"task": task.value, "precision": precision.value, "tokens": w.tokens,
              "params_b": params / 1e9, "active_params_b": active / 1e9}  # fmt: skip
    return job, label


def resolve(view: CatalogView, req: LlmEstimateRequest, settings: Settings) -> LlmScenario:
    """The scenario of ``req`` over ``view`` (see :func:`resolve_job` for the 422s)."""
    trail = Trail()
    job, label = resolve_job(view, req, trail)
    if req.gpus is not None:
        gpus = tuple(view.resolve_gpu(g) for g in req.gpus)
    else:
        gpus = tuple(g for g in view.gpus if g.fp16_tensor_tflops or g.bf16_tensor_tflops)
    region = resolve_region(view, req.region)
    rate = resolve_currency(view, req, trail)
    trail.assume(
        "cloud_price",
        "cheapest comparable offer, per GPU-hour",
        "app.costing.offers: on-demand, not Colab; instance price / its GPUs. An instance with "
        "more GPUs than the job needs runs it that much faster at the same cost under the "
        "linear FLOPs model (billing increments, minimums and multi-GPU losses not modelled)",
    )
    return LlmScenario(
        job=job,
        label=label,
        gpus=gpus,
        gpu_count=req.gpu_count,
        mfu=float(_default(trail, "mfu", req.mfu, defaults.LLM_MFU)),
        mbu=float(_default(trail, "mbu", req.mbu, defaults.LLM_MBU))
        if job.task is L.Task.INFERENCE
        else defaults.LLM_MBU.number,
        overhead_gb=float(_default(trail, "framework_overhead_gb", None, defaults.LLM_OVERHEAD)),
        usage=resolve_usage(view, req, trail),
        electricity_price_usd_per_kwh=request_electricity(view, req, region, settings, trail, rate),
        trail=trail,
    )


def peak_tflops(gpu: Gpu, precision: L.Precision) -> float | None:
    """The GPU's dense throughput the job's math runs at, TFLOPS (None: no such units)."""
    if precision.math == "fp32":
        return gpu.fp32_tflops
    if precision.math == "fp8":
        return gpu.fp8_tensor_tflops
    if precision is L.Precision.FP16:
        return gpu.fp16_tensor_tflops
    return gpu.bf16_tensor_tflops or gpu.fp16_tensor_tflops


def cheapest_offer(view: CatalogView, gpu_id: str) -> CloudOffer | None:
    """The GPU's cheapest comparable offer per GPU-hour (on demand, not Colab), or None."""
    rows = [
        o
        for o in view.offers.offers
        if o.gpu_id == gpu_id and offers.is_comparable(o) and o.price_usd_per_hour > 0
    ]
    return offers.cheapest_first(rows)[0] if rows else None


def _owned(
    view: CatalogView, s: LlmScenario, gpu: Gpu, count: int, runtime_s: float
) -> LlmOwnedCost | None:
    """A desktop of ``count`` x ``gpu`` (catalog GPU price + cheapest barebone) running the
    job: electricity and amortized purchase; None when the catalog cannot build it."""
    try:
        desk = resolve_desktop(
            view, DesktopSpec(gpu=gpu.id, gpu_count=count), Trail(), with_resale=False
        )
    except (CatalogGap, InvalidRequest, ValueError):
        return None
    run = costing.desktop_run_cost(
        runtime_s, desk.desktop, s.usage, s.electricity_price_usd_per_kwh
    )
    return LlmOwnedCost(
        upfront_usd=sig8(desk.desktop.upfront_usd),
        electricity_usd=sig8(run.marginal_cost_usd),
        amortized_purchase_usd=sig8(run.amortized_purchase_usd),
        cost_usd=sig8(run.fully_loaded_cost_usd),
        cost_usd_per_million_tokens=sig8(run.fully_loaded_cost_usd / s.job.tokens * 1e6),
    )


def _speed(s: LlmScenario, gpu: Gpu, count: int) -> tuple[L.Speed | None, float | None, str]:
    peak = peak_tflops(gpu, s.job.precision)
    if not peak:
        return None, None, f"{gpu.id} has no {s.job.precision.math} throughput figure"
    if s.job.task is L.Task.INFERENCE:
        bw = gpu.memory_bandwidth_gb_per_s
        if not bw:
            return None, peak, f"{gpu.id} has no memory bandwidth figure"
        return L.inference_speed(s.job, peak, bw, count, s.mfu, s.mbu), peak, ""
    return L.training_speed(s.job, peak, count, s.mfu), peak, ""


def _estimate(view: CatalogView, s: LlmScenario, mem: L.Memory, gpu: Gpu) -> LlmGpuEstimate:
    need = mem.gpus_needed(gpu.memory_gb, s.overhead_gb)
    fits = need is not None and need <= s.gpu_count
    count = s.gpu_count if fits else need
    n = s.gpu_count
    breakdown = MemoryBreakdown(
        weights_gb=sig8(mem.weights / n / L.GB),
        gradients_gb=sig8(mem.gradients / n / L.GB),
        optimizer_gb=sig8(mem.optimizer / n / L.GB),
        activations_gb=sig8(mem.activations / n / L.GB),
        kv_cache_gb=sig8(mem.kv_cache / n / L.GB),
        framework_overhead_gb=s.overhead_gb,
    )
    speed, peak, note = (None, None, "no number of GPUs holds it") if count is None else (
        _speed(s, gpu, count)
    )  # fmt: skip
    cloud = owned = None
    if speed is not None and count is not None:
        offer = cheapest_offer(view, gpu.id)
        if offer is not None:
            per_gpu = offers.price_per_gpu_hour(offer)
            rent = count * speed.runtime_s / 3600 * per_gpu
            s.trail.price(f"offer {offer.id}", offer.as_of)
            cloud = LlmCloudCost(
                offer_id=offer.id,
                provider=offer.provider,
                price_usd_per_gpu_hour=sig8(per_gpu),
                cost_usd=sig8(rent),
                cost_usd_per_million_tokens=sig8(rent / s.job.tokens * 1e6),
            )
        owned = _owned(view, s, gpu, count, speed.runtime_s)
    costs: list[float] = [c.cost_usd for c in (cloud, owned) if c is not None]
    cost: float | None = min(costs) if costs else None
    return LlmGpuEstimate(
        gpu_id=gpu.id,
        memory_gb=gpu.memory_gb,
        memory_gb_per_gpu=sig8(mem.per_gpu_gb(n, s.overhead_gb)),
        memory_breakdown=breakdown,
        fits=fits,
        gpus_needed=need,
        gpus_priced=count,
        peak_tflops=peak,
        runtime_s=sig8(speed.runtime_s) if speed else None,
        tokens_per_s=sig8(speed.tokens_per_s) if speed else None,
        bound=speed.bound if speed and s.job.task is L.Task.INFERENCE else None,
        cloud=cloud,
        owned=owned,
        cost_usd=cost,
        cost_usd_per_million_tokens=sig8(cost / s.job.tokens * 1e6) if cost is not None else None,
        note=note or None,
    )


def compose(s: LlmScenario, view: CatalogView, settings: Settings) -> LlmEstimateResult:
    """The answer to scenario ``s``: fitting GPUs cheapest first, then the rest by memory."""
    mem = L.memory(s.job)
    rows = [_estimate(view, s, mem, g) for g in s.gpus]
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
    fields = s.trail.price_fields(view, settings)
    return LlmEstimateResult(
        model=s.label | {"gpu_count": s.gpu_count},
        flops=sig8(flops),
        estimates=rows,
        assumptions=s.trail.assumptions,
        sources=s.trail.sources,
        **fields,
    )
