"""The inputs of a language-model job (``POST /v1/llm/estimate``, and ``workload.llm`` in
run-cost): the model (catalog or architecture numbers), precision, sequence, batch, LoRA
rank, MFU and MBU, each default stated with its source; and the GPU throughput the job's
math runs at."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.catalog.view import CatalogView
from app.costing import defaults, llm_engine, llm_mbu, llm_mfu
from app.costing import llm as L
from app.costing.llm_engine import DEFAULT_RULE, Engine, check_engine, default_engine
from app.costing.llm_serving import Serving, serve
from app.costing.sourced import Assumed, Caveat, Cited, Note, Sourced
from app.errors import InvalidRequest
from app.models.hf_config import LlmArchitecture
from app.models.llm import LlmWorkload

if TYPE_CHECKING:
    from app.models import Gpu


def stated(name: str, given: Any, d: defaults.Default) -> Sourced[Any]:
    notes: list[Note] = []
    if given is not None:
        return Sourced(given, tuple(notes))
    notes.append(Assumed(name, d.value, d.source_text()))
    return Sourced(d.value, tuple(notes))


def given_architecture(a: LlmArchitecture) -> tuple[L.Architecture, float, float]:
    """A request's architecture numbers as a shape, with its total and active parameters
    (published if given, else derived); 422 for an inconsistent mixture of experts."""
    heads = a.heads
    if a.experts and not (0 < a.experts_per_token <= a.experts and a.moe_intermediate_size):
        raise InvalidRequest(
            "architecture: a mixture of experts needs 1 <= experts_per_token <= experts "
            "and moe_intermediate_size"
        )
    if a.kv_heads and heads % a.kv_heads:
        raise InvalidRequest("architecture: heads must be a multiple of kv_heads")
    if a.sliding_window_layers > a.layers or bool(a.sliding_window_layers) != bool(
        a.sliding_window
    ):
        raise InvalidRequest("architecture: sliding_window_layers (at most layers) and "
                             "sliding_window go together")  # fmt: skip
    if a.linear_layers >= a.layers or a.linear_layers + a.sliding_window_layers > a.layers:
        raise InvalidRequest("architecture: linear_layers and sliding_window_layers are at most "
                             "layers, with at least one attention layer (a pure state-space "
                             "model is not modelled)")  # fmt: skip
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
        sliding_window=a.sliding_window,
        sliding_window_layers=a.sliding_window_layers,
        linear_layers=a.linear_layers,
    )
    params = a.params_b * 1e9 if a.params_b else arch.total_params()
    active = a.active_params_b * 1e9 if a.active_params_b else arch.active_params()
    if a.experts == 0 and not a.active_params_b:
        active = params  # a dense model multiplies every weight
    return arch, params, active


def _training_notes(checkpointing: bool) -> list[Note]:
    """What a training job's memory assumes: activation recomputation, the attention kernel
    and the optimizer, each with its source."""
    how = "full activation recomputation" if checkpointing else "none"
    return [
        Assumed("activation_checkpointing", how, defaults.LLM_CHECKPOINTING.source_text()),
        Assumed(
            "attention_kernel",
            "FlashAttention (no s x s scores stored)",
            "Dao et al. 2022, 'FlashAttention' (arXiv 2205.14135): memory linear in sequence "
            "length; PyTorch's scaled_dot_product_attention, transformers' default",
        ),
        Assumed(
            "optimizer",
            "Adam, mixed precision",
            "16 bytes per trained parameter: Rajbhandari et al. 2020 (ZeRO) §3.1; QLoRA "
            "adapters 12 (bf16 weights and gradients, paged 32-bit AdamW)",
        ),
    ]


def resolve_job(
    view: CatalogView,
    w: LlmWorkload,
) -> Sourced[tuple[L.Job, dict[str, Any]]]:
    """The job ``w`` describes, every default stated: 422 for an unknown model (with the
    closest ids), a precision the task cannot run in, or a sequence longer than the model's
    context."""
    notes: list[Note] = []
    if w.model is not None:
        m = view.resolve_llm(w.model)
        notes.append(Cited(f"model {m.id}: shape", m.config_source, m.as_of))
        notes.append(Cited(f"model {m.id}: parameters", m.params_source, m.as_of))
        arch, params, active = m.arch, m.params, m.active_params
        label: dict[str, Any] = {"model": m.id, "name": m.name}
    else:
        arch, params, active = given_architecture(w.architecture)
        label = {"model": "architecture"}
    task = L.Task(w.task)
    if w.precision is not None:
        precision = L.Precision(w.precision)
    elif task is L.Task.QLORA:
        precision = L.Precision.INT4
        notes.append(Assumed("precision", "int4", defaults.LLM_PRECISION.source_text()))
    else:
        named, noted = stated("precision", None, defaults.LLM_PRECISION)
        notes += noted
        precision = L.Precision(named)
    L.check_precision(task, precision)
    engine, noted = resolve_engine(w, task, precision)
    notes += noted
    if task is L.Task.LORA and precision is L.Precision.FP8:
        notes.append(Cited("fp8 LoRA: the frozen base stored and multiplied in fp8", *FP8_LORA))
    prompt = output = 0
    if task is L.Task.INFERENCE:
        prompt_stated, noted = stated("prompt_tokens", w.prompt_tokens, defaults.LLM_PROMPT_TOKENS)
        notes += noted
        output_stated, noted = stated("output_tokens", w.output_tokens, defaults.LLM_OUTPUT_TOKENS)
        notes += noted
        prompt, output = int(prompt_stated), int(output_stated)
        seq = w.context_length or prompt + output
    elif w.context_length is not None:
        seq = w.context_length
    else:
        seq = min(int(defaults.LLM_SEQUENCE_LENGTH.number), arch.context_length)
        notes.append(Assumed("context_length", seq, defaults.LLM_SEQUENCE_LENGTH.source_text()))
    if seq > arch.context_length:
        if not task.trains:
            raise InvalidRequest(
                f"context_length {seq} tokens is longer than the model's {arch.context_length}"
            )
        notes.append(Caveat(CONTEXT_EXTENSION.format(seq=seq, model=arch.context_length)))
    batch_stated, noted = stated("batch_size", w.batch_size, defaults.LLM_BATCH_SIZE)
    notes += noted
    batch = int(batch_stated)
    rank = int(w.lora_rank or defaults.LORA_RANK.number)
    if task.adapters and w.lora_rank is None:
        notes.append(Assumed("lora_rank", rank, defaults.LORA_RANK.source_text()))
    if task.trains:
        notes += _training_notes(w.activation_checkpointing)
    tokens = w.tokens if w.tokens is not None else 0.0  # none: a memory-only question
    job = L.Job(
        arch, task, precision, tokens, seq, batch, rank, w.activation_checkpointing,
        prompt, output, params, active, w.kv_cache_dtype == "fp8", engine.value,
    )  # fmt: skip
    label |= {"task": task.value, "precision": precision.value, "tokens": w.tokens,
              "params_b": params / 1e9, "active_params_b": active / 1e9,
              "context_length": seq, "batch_size": batch,
              "kv_cache_dtype": w.kv_cache_dtype or "auto", "engine": engine.value,
              "model_context_length": arch.context_length}  # fmt: skip
    return Sourced((job, label), tuple(notes))


FP8_LORA = (
    "NVIDIA's MLPerf Training v4.1 Llama 2 70B LoRA (mlcommons/training_results_v4.1, "
    "NVIDIA/benchmarks/llama2_70b_lora/implementations/eos_ngc24.09_nemo: NeMo with `FP8=True`, "
    "which sets `fp8` and `fp8_params`); the adapters are costed as peft's fp32 Adam",
    dt.date(2024, 11, 13),
)
CONTEXT_EXTENSION = (
    "context_length {seq} tokens is longer than the model's published {model}: timed and sized "
    "as a context-extension fine-tune at {seq} (RoPE scaling, as MLPerf Training's Llama 2 70B "
    "LoRA trains at 8,192); the model's quality at that length is not estimated"
)


def resolve_engine(w: LlmWorkload, task: L.Task, precision: L.Precision) -> Sourced[Engine]:
    """The engine ``w`` names, else the default for its task and precision, stated; 422 when
    it cannot run them (:func:`app.costing.llm_engine.check_engine`)."""
    notes: tuple[Note, ...] = ()
    if w.engine is not None:
        engine = Engine(w.engine)
    else:
        engine = default_engine(task, precision)
        notes = (Assumed("engine", engine.value, DEFAULT_RULE),)
    check_engine(engine, task, precision)
    if engine is Engine.TRANSFORMERS and task is L.Task.INFERENCE:
        floor = llm_mbu.TRANSFORMERS_EAGER_STEP_S
        notes += (Assumed("decode_step_floor_s", floor, llm_mbu.TRANSFORMERS_EAGER_SOURCE),)
    return Sourced(engine, notes)


def peak_tflops(gpu: Gpu, precision: L.Precision, engine: str = "") -> float | None:
    """The GPU's dense throughput the job's math runs at in ``engine``, TFLOPS (None: no such
    units): llama.cpp's fp16 at the FP16-accumulate rate where the catalog has one."""
    fp16_acc16 = gpu.fp16_acc16_tensor_tflops
    if precision is L.Precision.FP16 and engine and Engine(engine).fp16_accumulate and fp16_acc16:
        return fp16_acc16
    if precision.math == "fp32":
        return gpu.fp32_tflops
    if precision.math == "fp8":
        return gpu.fp8_tensor_tflops
    if precision.gguf and gpu.int8_tensor_tops:  # llama.cpp's MMQ: int8 tensor cores
        return gpu.int8_tensor_tops
    if precision is L.Precision.FP16:
        return gpu.fp16_tensor_tflops
    return gpu.bf16_tensor_tflops or gpu.fp16_tensor_tflops


def utilizations(
    w: LlmWorkload,
) -> Sourced[tuple[float | None, float]]:
    """The job's MFU and (inference) MBU: given, else the sourced defaults, stated. MFU None:
    pre-training's fitted curve, per GPU (:func:`job_mfu`)."""
    notes: list[Note] = []
    task = L.Task(w.task)
    mfu: float | None
    if w.mfu is None and task is L.Task.PRETRAIN:
        mfu = None
        notes.append(Assumed("mfu", "per GPU: " + llm_mfu.PRETRAIN.formula(), PRETRAIN_MFU_SOURCE))
    elif (
        w.mfu is None and task is L.Task.INFERENCE and w.precision and L.Precision(w.precision).gguf
    ):
        mfu = llm_mbu.MMQ_PREFILL_SHARE
        notes.append(Assumed("mfu", round(mfu, 3), MMQ_PREFILL_SOURCE))
    else:
        mfu_stated, noted = stated("mfu", w.mfu, defaults.LLM_MFU)
        notes += noted
        mfu = float(mfu_stated)
    if task is not L.Task.INFERENCE:
        return Sourced((mfu, defaults.LLM_MBU.number), tuple(notes))
    precision = L.Precision(w.precision or str(defaults.LLM_PRECISION.value))
    if w.mbu is None and precision.weight_only:
        bits = precision.weight_bytes * 8
        mbu = llm_mbu.QUANTIZED(bits)
        notes.append(Assumed("mbu", round(mbu, 3), QUANTIZED_MBU_SOURCE.format(bits=bits)))
        return Sourced((mfu, mbu), tuple(notes))
    mbu_stated, noted = stated("mbu", w.mbu, defaults.LLM_MBU)
    notes += noted
    return Sourced((mfu, float(mbu_stated)), tuple(notes))


MMQ_PREFILL_SOURCE = (
    "default for a GGUF format's prefill: the share of the GPU's dense int8 tensor TOPS "
    "llama.cpp's MMQ kernels reach, the mean of its published prompt throughputs "
    "(app/costing/llm_mbu.py: " + llm_mbu.PREFILL_SOURCES + "); a GPU without an int8 "
    "tensor figure is timed at its 16-bit rate"
)
QUANTIZED_MBU_SOURCE = (
    "default for weight-only quantized weights ({bits:.2f} bits): "
    + llm_mbu.QUANTIZED.formula()
    + ", fitted on llama.cpp's published batch-1 decode (app/costing/llm_mbu.py: "
    + llm_mbu.SOURCES
    + ")"
)


SERVING_ROOM_RULE = (
    "the engine takes gpu_memory_utilization of each GPU, less the framework overhead, the "
    "weights and the activations of a profile pass as long as one sequence (the MLP's "
    "3 x intermediate + hidden values per token, 16-bit); the KV cache gets the rest: vLLM's "
    "sizing (vllm-project/vllm issue #8185: it profiles max_num_batched_tokens, max_model_len "
    "when prefill is not chunked; chunked prefill profiles fewer tokens and leaves more room); "
    f"on two or more GPUs another {llm_engine.VLLM_TP_EXTRA_GIB:g} GiB per GPU of NCCL and "
    "all-reduce buffers (vllm-project/vllm PR #10511: non_torch_memory 1.79 GiB at -tp 1, "
    "3.58 GiB at -tp 2)"
)


OTHER_ENGINES_ROOM = {
    Engine.TENSORRT_LLM: "tensorrt-llm: its KV cache takes free_gpu_memory_fraction "
    f"{llm_engine.TRT_FREE_MEMORY_FRACTION:g} of each GPU's memory left once the framework "
    "overhead, the weights and the activations of one sequence are placed (TensorRT-LLM docs, "
    "'How to Change KV Cache Behavior': 'The default for free_gpu_memory_fraction is 0.9')",
    Engine.LLAMA_CPP: "llama.cpp allocates the KV cache of the context it is given: the whole of "
    "each GPU less the framework overhead, the weights and the activations of one sequence",
    Engine.TRANSFORMERS: "transformers grows the KV cache with the sequences: the whole of each "
    "GPU less the framework overhead, the weights and the activations of one sequence",
}


def serving_share(w: LlmWorkload, engine: str) -> Sourced[float | None]:
    """Inference: the share of each GPU's total the serving ``engine`` takes (vLLM: given,
    else its default; the others take the whole card), stated with the rule that sizes the
    batch and context room; None for training. 422: ``gpu_memory_utilization`` given for an
    engine without it."""
    if L.Task(w.task) is not L.Task.INFERENCE:
        return Sourced(None)
    if not Engine(engine).takes_total_share:
        if w.gpu_memory_utilization is not None:
            raise InvalidRequest(f"gpu_memory_utilization is vLLM's setting; engine {engine} "
                                 "sizes its KV cache its own way (the answer states how)")  # fmt: skip
        room = Assumed("max_batch_size, max_context_tokens", "the serving engine's KV cache room",
                       OTHER_ENGINES_ROOM[Engine(engine)])  # fmt: skip
        return Sourced(1.0, (room,))
    share, notes = stated(
        "gpu_memory_utilization", w.gpu_memory_utilization, defaults.LLM_GPU_MEMORY_UTILIZATION
    )
    room = Assumed("max_batch_size, max_context_tokens", "the serving engine's KV cache room",
                   SERVING_ROOM_RULE)  # fmt: skip
    return Sourced(float(share), (*notes, room))


PRETRAIN_MFU_SOURCE = (
    "default: pre-training MFU by model width and GPU balance (app/costing/llm_mfu.py); "
    f"ceiling {defaults.LLM_MFU_PRETRAIN_CEILING.source_text()}; coefficient "
    f"{defaults.LLM_MFU_PRETRAIN_COEFFICIENT.number:g}. Job times {llm_mfu.error_range()}"
)


def job_mfu(job: L.Job, gpu: Gpu, given: float | None) -> float:
    """The MFU ``job`` runs at on ``gpu``: ``given``, else (pre-training) the fitted curve at
    the GPU's dense 16-bit rate, bandwidth and the model's width, else the default (no
    16-bit tensor rate or bandwidth figure)."""
    if given is not None:
        return given
    peak16 = gpu.bf16_tensor_tflops or gpu.fp16_tensor_tflops
    bw = gpu.memory_bandwidth_gb_per_s
    if job.task is not L.Task.PRETRAIN or not peak16 or not bw:
        return defaults.LLM_MFU.number
    return llm_mfu.PRETRAIN.mfu(peak16, bw, job.arch.hidden_size)


def job_speed(
    job: L.Job, gpu: Gpu, count: int, mfu: float | None, mbu: float
) -> tuple[L.Speed | None, float | None, str]:
    """``(speed, peak TFLOPS, why not)`` of ``job`` on ``count`` x ``gpu`` at :func:`job_mfu`:
    no speed (and a reason) when the GPU lacks the throughput or bandwidth figure the job
    needs."""
    peak = peak_tflops(gpu, job.precision, job.engine)
    if not peak:
        return None, None, f"{gpu.id} has no {job.precision.math} throughput figure"
    share = job_mfu(job, gpu, mfu)
    if job.task is L.Task.INFERENCE:
        bw = gpu.memory_bandwidth_gb_per_s
        if not bw:
            return None, peak, f"{gpu.id} has no memory bandwidth figure"
        return L.inference_speed(job, peak, bw, count, share, mbu), peak, ""
    return L.training_speed(job, peak, count, share), peak, ""


def job_serving(
    job: L.Job,
    gpu: Gpu,
    count: int,
    mfu: float | None,
    mbu: float,
    concurrency: int,
    tokens_per_day: float,
) -> Serving | None:
    """``tokens_per_day`` of inference ``job`` served ``concurrency`` at a time on ``count``
    x ``gpu`` (:func:`app.costing.llm_serving.serve`); None when the GPU lacks the
    throughput or bandwidth figure (as :func:`job_speed`)."""
    peak = peak_tflops(gpu, job.precision, job.engine)
    bw = gpu.memory_bandwidth_gb_per_s
    if not peak or not bw:
        return None
    share = job_mfu(job, gpu, mfu)
    decode_load = defaults.LLM_DECODE_GPU_LOAD.number
    return serve(job, peak, bw, count, share, mbu, concurrency, tokens_per_day, decode_load)


@dataclass(frozen=True)
class LlmRun:
    """A language-model workload resolved once: the ``job``, its MFU (None: per GPU, see
    :func:`job_mfu`) and MBU and the per-GPU framework overhead (GB)."""

    job: L.Job
    mfu: float | None
    mbu: float
    overhead_gb: float


@dataclass(frozen=True)
class LlmTiming:
    """The job on ``count`` x one GPU: ``seconds`` (None: does not fit, or no throughput
    figure), ``fits``, ``gpus_needed`` (fewest of these GPUs that hold it; None: no number
    does) and a ``note`` saying how the time was obtained or why there is none."""

    seconds: float | None
    fits: bool
    gpus_needed: int | None
    note: str


def resolve_run(
    view: CatalogView,
    w: LlmWorkload,
) -> Sourced[LlmRun]:
    """The language-model workload's job, MFU, MBU and overhead, each default stated."""
    notes: list[Note] = []
    (job, _label), noted = resolve_job(view, w)
    notes += noted
    (mfu, mbu), noted = utilizations(w)
    notes += noted
    overhead_stated, noted = stated("framework_overhead_gb", None, defaults.LLM_OVERHEAD)
    notes += noted
    overhead = float(overhead_stated)
    return Sourced(LlmRun(job, mfu, mbu, overhead), tuple(notes))


def time_on(run: LlmRun, gpu: Gpu, count: int) -> LlmTiming:
    """``run``'s job on ``count`` x ``gpu``: timed when they hold it (memory split evenly,
    :meth:`app.costing.llm.Memory.gpus_needed`), else not, saying how many would."""
    need = L.memory(run.job).gpus_needed(gpu.memory_gb, run.overhead_gb)
    if need is None or need > count:
        why = f"needs {need} x {gpu.id}" if need else f"no number of {gpu.id} holds it"
        return LlmTiming(None, False, need, f"LLM job does not fit: {why}")
    speed, _peak, why = job_speed(run.job, gpu, count, run.mfu, run.mbu)
    if speed is None:
        return LlmTiming(None, True, need, why)
    mfu = job_mfu(run.job, gpu, run.mfu)
    how = f"{L.flops_per_token(run.job.task):g}·N·D FLOPs at MFU {mfu:.3g}"
    if run.job.task is L.Task.INFERENCE:
        how = f"prefill at MFU {mfu:.3g}, decode {speed.bound}-bound (MBU {run.mbu:g})"
    note = (
        f"LLM job: {how}, {speed.tokens_per_s:.4g} tokens/s (POST /v1/llm/estimate has the "
        "memory breakdown)"
    )
    return LlmTiming(speed.runtime_s, True, need, note)


def tokens_in(gpu_id: str, gpus: int | None, tokens_per_s: float, hours: float) -> Sourced[float]:
    """The tokens ``gpus`` x ``gpu_id`` process in ``hours`` h at the estimate's
    ``tokens_per_s`` (at least one), for a job given by its duration (stated)."""
    tokens = max(1.0, tokens_per_s * hours * 3600.0)
    note = Assumed(
        "tokens",
        round(tokens),
        f"what {gpus or 1} x {gpu_id} process in {hours:g} h at the estimate's "
        f"{tokens_per_s:.4g} tokens/s",
    )
    return Sourced(tokens, (note,))
