"""Language-model jobs: parameters, memory, FLOPs and time of training, fine-tuning (LoRA,
QLoRA) and inference of a decoder-only transformer, as pure functions of its architecture.

Every formula names its source:

- Parameters: the shapes of a Llama-style decoder (gated MLP, grouped-query attention, RMSNorm),
  with mixture-of-experts layers (Mixtral, DeepSeek) and multi-head latent attention (DeepSeek-V2,
  arXiv 2405.04434 §2.1). Checked against each model's published total in
  ``tests/api/test_llm_catalog_audit.py``.
- Model states: 16 bytes per trained parameter for mixed-precision Adam (2 weights + 2 gradients
  + 12 for the fp32 master copy, momentum and variance; Rajbhandari et al. 2020, "ZeRO", §3.1);
  fp32 LoRA adapters 4 + 4 + 8; QLoRA's bf16 adapters 2 + 2 + 8 (its paged 32-bit AdamW);
  everything sharded evenly over the GPUs (ZeRO stage 3 / FSDP, ibid. §5; tensor parallel at
  inference).
- Activations: Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer
  Models", arXiv 2205.05198) §4: ``s·b·h·(34 + 5·a·s/h)`` bytes per layer without recomputation;
  with full recomputation each layer keeps its 2·s·b·h-byte input and one layer's working set is
  live during its backward.
- KV cache: 2 (K and V) x layers x KV heads x head size x bytes per token (Pope et al. 2022,
  "Efficiently Scaling Transformer Inference" §2); latent attention caches kv_lora_rank +
  qk_rope_head_dim values per token and layer (DeepSeek-V2 §2.1.2).
- FLOPs: 6·N·D for training (Kaplan et al. 2020 §2.1; Hoffmann et al. 2022), 4·N·D for
  LoRA/QLoRA (forward 2·N·D + the input-gradient half of the backward, no weight gradients:
  Kaplan's 2:4 forward:backward split; Hu et al. 2021 "LoRA" §4.2 report the resulting 25 %
  speed-up on GPT-3 175B), 2·N per generated or prompt token at inference; N is the parameters
  active per token (MoE: the routed experts' share only).
- Inference: prefill is compute-bound (FLOPs over tensor throughput x MFU), each decode step is
  bandwidth-bound (weights + the batch's KV cache read once over bandwidth x MBU) unless the
  batch makes it compute-bound (roofline: Williams et al. 2009; applied to LLM decoding in Pope
  et al. 2022 §3).

Units in names: bytes, GB (1e9 bytes), FLOPs, TFLOPS, s. Pure Python; no imports of ours but
the errors, the number formats (:mod:`app.costing.llm_precision`) and the measured kernels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from app.costing.errors import InvalidInput as ModelInputError
from app.costing.llm_mbu import TRANSFORMERS_EAGER_STEP_S
from app.costing.llm_precision import LlmPrecision as LlmPrecision
from app.costing.llm_precision import Precision as Precision

GB = 1e9
# A binary gigabyte: what GPU data sheets mean by "GB" of memory (2^30 bytes).
GIB = float(2**30)

# Mixed-precision Adam model states per trained parameter (ZeRO §3.1): 2 + 2 + 12 bytes.
ADAM_WEIGHT_BYTES, ADAM_GRADIENT_BYTES, ADAM_OPTIMIZER_BYTES = 2.0, 2.0, 12.0
# QLoRA's adapters: bf16 weights and gradients, 32-bit (paged) AdamW momentum and variance, no
# fp32 master copy (artidoro/qlora qlora.py casts LoRA modules to bf16; QLoRA §3 paged
# optimizers). LoRA through peft keeps fp32 adapters: the fp32 Adam figures below.
QLORA_ADAPTER_BYTES = (2.0, 2.0, 8.0)
# Plain fp32 Adam: 4-byte weights and gradients, 8 bytes of momentum and variance.
FP32_WEIGHT_BYTES, FP32_GRADIENT_BYTES, FP32_OPTIMIZER_BYTES = 4.0, 4.0, 8.0
# Korthikanti et al. 2022 eq. (1): activation bytes per layer = s·b·h·(34 + 5·a·s/h) in 16 bits.
ACT_LINEAR_BYTES, ACT_ATTENTION_BYTES = 34.0, 5.0
# Logits are upcast to float32 for the loss (Hugging Face transformers' LlamaForCausalLM).
LOGIT_BYTES = 4.0


class Task(StrEnum):
    """What the job does: train from scratch, fine-tune every weight, train LoRA adapters on a
    frozen 16/8-bit base, train LoRA adapters on a 4-bit base (QLoRA), or generate tokens."""

    PRETRAIN = "pretrain"
    FULL_FINETUNE = "full_finetune"
    LORA = "lora"
    QLORA = "qlora"
    INFERENCE = "inference"

    @property
    def trains(self) -> bool:
        return self is not Task.INFERENCE

    @property
    def adapters(self) -> bool:
        return self in (Task.LORA, Task.QLORA)


# Which precisions each task accepts, and why the others are refused.
ALLOWED: dict[Task, tuple[frozenset[Precision], str]] = {
    Task.PRETRAIN: (
        frozenset({Precision.FP32, Precision.BF16, Precision.FP16, Precision.FP8}),
        "training updates every weight: int8/int4 weights cannot be trained (use lora or qlora)",
    ),
    Task.FULL_FINETUNE: (
        frozenset({Precision.FP32, Precision.BF16, Precision.FP16, Precision.FP8}),
        "a full fine-tune updates every weight: int8/int4 weights cannot be trained (use lora "
        "or qlora)",
    ),
    Task.LORA: (
        frozenset({Precision.FP32, Precision.BF16, Precision.FP16, Precision.FP8, Precision.INT8}),
        "lora keeps a 32-, 16- or 8-bit frozen base; a 4-bit base is qlora",
    ),
    Task.QLORA: (
        frozenset({Precision.INT4}),
        "qlora quantizes the frozen base to 4-bit NF4: precision must be int4 (or use lora)",
    ),
    Task.INFERENCE: (frozenset(Precision), ""),
}


def check_precision(task: Task, precision: Precision) -> None:
    """Raise :class:`ModelInputError` when ``precision`` is impossible for ``task``."""
    allowed, why = ALLOWED[task]
    if precision not in allowed:
        raise ModelInputError(f"task {task.value} cannot run in {precision.value}: {why}")


@dataclass(frozen=True)
class Architecture:
    """A decoder-only transformer's shape, as its ``config.json`` gives it.

    Attributes: ``layers``, ``hidden_size``, ``intermediate_size`` (dense MLP width), ``heads``,
    ``kv_heads``, ``head_dim``, ``vocab_size``, ``context_length`` (tokens),
    ``tied_embeddings``; mixture of experts: ``experts`` (routed, 0 = dense),
    ``experts_per_token``, ``shared_experts``, ``moe_intermediate_size``, ``dense_layers`` (the
    first layers keep a dense MLP); latent attention (0 = standard): ``q_lora_rank``,
    ``kv_lora_rank``, ``qk_nope_head_dim``, ``qk_rope_head_dim``, ``v_head_dim``; sliding-window
    attention: ``sliding_window_layers`` of the layers attend to the last ``sliding_window``
    tokens only (0 = every layer attends to the whole context); hybrid models:
    ``linear_layers`` are linear-attention or state-space layers (Qwen3-Next's Gated DeltaNet,
    Mamba) whose fixed-size state grows with no token (not counted: a few MB).
    """

    layers: int
    hidden_size: int
    intermediate_size: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab_size: int
    context_length: int
    tied_embeddings: bool = False
    experts: int = 0
    experts_per_token: int = 0
    shared_experts: int = 0
    moe_intermediate_size: int = 0
    dense_layers: int = 0
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0
    sliding_window: int = 0
    sliding_window_layers: int = 0
    linear_layers: int = 0

    @property
    def latent_attention(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def moe_layers(self) -> int:
        return max(0, self.layers - self.dense_layers) if self.experts else 0

    def attention_params(self) -> float:
        """Weights of one attention block (projections only)."""
        h = self.hidden_size
        if self.latent_attention:
            qk = self.qk_nope_head_dim + self.qk_rope_head_dim
            q = h * self.heads * qk
            if self.q_lora_rank:
                q = h * self.q_lora_rank + self.q_lora_rank * self.heads * qk
            kv = h * (self.kv_lora_rank + self.qk_rope_head_dim) + self.kv_lora_rank * (
                self.heads * (self.qk_nope_head_dim + self.v_head_dim)
            )
            return q + kv + self.heads * self.v_head_dim * h
        q_width = self.heads * self.head_dim
        return 2 * h * q_width + 2 * h * self.kv_heads * self.head_dim

    def expert_params(self) -> float:
        """Weights of one expert's gated MLP (three matrices)."""
        return 3 * self.hidden_size * self.moe_intermediate_size

    def embedding_params(self) -> float:
        """Input embedding and output head (one matrix when tied)."""
        return self.vocab_size * self.hidden_size * (1 if self.tied_embeddings else 2)

    def total_params(self) -> float:
        """Every weight: embeddings, attention, MLPs (all experts), norms and routers."""
        h = self.hidden_size
        dense_mlp = 3 * h * self.intermediate_size
        dense = self.layers - self.moe_layers
        moe = (self.experts + self.shared_experts) * self.expert_params() + h * self.experts
        return (
            self.embedding_params()
            + self.layers * (self.attention_params() + 2 * h)
            + dense * dense_mlp
            + self.moe_layers * moe
            + h
        )

    def active_params(self) -> float:
        """Weights a token's forward pass multiplies: all but the experts it is not routed to
        and the input embedding (a lookup), as MoE model cards count them."""
        idle = self.moe_layers * (self.experts - self.experts_per_token) * self.expert_params()
        return self.total_params() - idle - self.vocab_size * self.hidden_size

    def kv_values_per_token(self) -> float:
        """Values the KV cache holds per token, over all layers."""
        if self.latent_attention:
            return self.layers * (self.kv_lora_rank + self.qk_rope_head_dim)
        return 2 * self.layers * self.kv_heads * self.head_dim

    def linear_shapes(self) -> list[tuple[int, int, int]]:
        """``(d_in, d_out, count)`` of the linear layers LoRA adapts (all of them, as QLoRA
        does), over the model; experts count as their own matrices."""
        h, out = self.hidden_size, []
        if self.latent_attention:
            qk = self.qk_nope_head_dim + self.qk_rope_head_dim
            out.append((h, self.heads * qk, self.layers))
            out.append((h, self.kv_lora_rank + self.qk_rope_head_dim, self.layers))
            kv_out = self.heads * (self.qk_nope_head_dim + self.v_head_dim)
            out.append((self.kv_lora_rank, kv_out, self.layers))
            out.append((self.heads * self.v_head_dim, h, self.layers))
        else:
            q, kv = self.heads * self.head_dim, self.kv_heads * self.head_dim
            out += [(h, q, self.layers), (h, kv, 2 * self.layers), (q, h, self.layers)]
        dense = self.layers - self.moe_layers
        out += [(h, self.intermediate_size, 2 * dense), (self.intermediate_size, h, dense)]
        if self.moe_layers:
            n = self.moe_layers * (self.experts + self.shared_experts)
            out += [(h, self.moe_intermediate_size, 2 * n), (self.moe_intermediate_size, h, n)]
        return out

    def lora_params(self, rank: int) -> float:
        """Trainable adapter weights: ``rank x (d_in + d_out)`` per adapted matrix (Hu et al.
        2021 §4.1)."""
        return sum(rank * (d_in + d_out) * n for d_in, d_out, n in self.linear_shapes())


@dataclass(frozen=True)
class Job:
    """One job on ``gpu_count`` GPUs: its ``task``, ``precision``, ``tokens`` (trained, or
    generated at inference), ``sequence_length`` (training sequence; at inference the KV cache
    length per sequence, prompt + output), ``batch_size`` (sequences processed together over
    all GPUs), ``prompt_tokens`` and ``output_tokens`` per sequence (inference),
    ``lora_rank``, ``checkpointing`` (full activation recomputation), ``params``/``active_params``
    (the published totals the FLOPs use; None: derived from the architecture), ``kv_fp8``
    (inference: an fp8 KV cache), ``engine`` (an :class:`app.costing.llm_engine.Engine` value;
    empty: no engine's rules)."""

    arch: Architecture
    task: Task
    precision: Precision
    tokens: float
    sequence_length: int
    batch_size: int
    lora_rank: int
    checkpointing: bool
    prompt_tokens: int = 0
    output_tokens: int = 0
    params: float | None = None
    active_params: float | None = None
    kv_fp8: bool = False
    engine: str = ""

    @property
    def kv_bytes(self) -> float:
        """Bytes per cached K/V value: 1 with an fp8 KV cache (vLLM's ``--kv-cache-dtype
        fp8``), else :func:`kv_value_bytes` of the precision."""
        return 1.0 if self.kv_fp8 else kv_value_bytes(self.precision)

    @property
    def n_total(self) -> float:
        return self.params if self.params is not None else self.arch.total_params()

    @property
    def n_active(self) -> float:
        return self.active_params if self.active_params is not None else self.arch.active_params()


@dataclass(frozen=True)
class Memory:
    """Bytes the whole job holds (divide by GPUs with :meth:`per_gpu_gb`): ``weights``,
    ``gradients``, ``optimizer`` states, ``activations``, ``kv_cache``; ``overhead_gb`` (CUDA
    context and framework, per GPU) is added on every GPU."""

    weights: float
    gradients: float
    optimizer: float
    activations: float
    kv_cache: float

    @property
    def sharded(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations + self.kv_cache

    def per_gpu_gb(self, gpu_count: int, overhead_gb: float) -> float:
        """GB per GPU when the job is split evenly over ``gpu_count`` GPUs."""
        return self.sharded / gpu_count / GB + overhead_gb

    def gpus_needed(self, memory_gb: float, overhead_gb: float) -> int | None:
        """Fewest GPUs of ``memory_gb`` (a data sheet's figure, binary: :func:`card_gb`) that
        hold the job (None: not even one GPU's overhead fits)."""
        room = card_gb(memory_gb) - overhead_gb
        if room <= 0:
            return None
        return max(1, math.ceil(self.sharded / GB / room - 1e-9))


def card_gb(memory_gb: float) -> float:
    """A card's memory in GB (1e9 bytes, the unit every need here is in) from its data
    sheet's figure, which counts binary gigabytes: a "24 GB" RTX 3090 holds 24 x 2^30 =
    25.8e9 bytes (nvidia-smi reports its memory.total as 24,576 MiB; an "80 GB" A100 as
    81,920 MiB)."""
    return memory_gb * GIB / GB


def activation_bytes(
    arch: Architecture, seq: int, batch: int, checkpointing: bool, flash: bool = True
) -> float:
    """Training activations (16-bit), bytes: Korthikanti et al. 2022 eq. (1) per layer, or with
    full recomputation every layer's input (2·s·b·h) plus one layer's working set; plus the
    float32 logits of the loss. With ``flash`` (FlashAttention, Dao et al. 2022, PyTorch's
    default SDPA kernels) the s x s attention scores (the 5·a·s/h term) are never stored."""
    s, b, h, a = seq, batch, arch.hidden_size, arch.heads
    scores = 0.0 if flash else ACT_ATTENTION_BYTES * a * s / h
    per_layer = s * b * h * (ACT_LINEAR_BYTES + scores)
    logits = s * b * arch.vocab_size * LOGIT_BYTES
    if checkpointing:
        return arch.layers * 2 * s * b * h + per_layer + logits
    return arch.layers * per_layer + logits


def kv_cache_bytes(
    arch: Architecture, tokens_per_seq: float, batch: int, value_bytes: float
) -> float:
    """KV cache of ``batch`` sequences of ``tokens_per_seq`` tokens, bytes: a sliding-window
    layer keeps its last ``sliding_window`` tokens only (Mistral 7B's rolling buffer cache,
    Jiang et al. 2023 §2; Gemma 2's local layers, arXiv 2408.00118 §2); a linear-attention or
    state-space layer keeps none."""
    windowed = arch.sliding_window_layers if arch.sliding_window else 0
    held = (arch.layers - windowed - arch.linear_layers) * tokens_per_seq
    held += windowed * min(tokens_per_seq, arch.sliding_window)
    return arch.kv_values_per_token() / arch.layers * held * batch * value_bytes


def kv_value_bytes(precision: Precision) -> float:
    """Bytes per cached K/V value: 1 in fp8, 4 in fp32, else 16-bit (weight-only int8/int4
    keep a 16-bit cache, as llama.cpp and vLLM do by default)."""
    return {Precision.FP8: 1.0, Precision.FP32: 4.0}.get(precision, 2.0)


def memory(job: Job) -> Memory:
    """What ``job`` holds in GPU memory, bytes (see :class:`Memory`)."""
    check_precision(job.task, job.precision)
    arch, n = job.arch, job.n_total
    if job.task is Task.INFERENCE:
        kv = kv_cache_bytes(arch, job.sequence_length, job.batch_size, job.kv_bytes)
        return Memory(n * job.precision.weight_bytes, 0.0, 0.0, 0.0, kv)
    acts = activation_bytes(arch, job.sequence_length, job.batch_size, job.checkpointing)
    if job.task.adapters:
        adapters = arch.lora_params(job.lora_rank)
        w, g, o = (
            QLORA_ADAPTER_BYTES
            if job.task is Task.QLORA
            else (FP32_WEIGHT_BYTES, FP32_GRADIENT_BYTES, FP32_OPTIMIZER_BYTES)
        )
        return Memory(
            n * job.precision.weight_bytes + adapters * w, adapters * g, adapters * o, acts, 0.0
        )
    if job.precision is Precision.FP32:
        w, g, o = FP32_WEIGHT_BYTES, FP32_GRADIENT_BYTES, FP32_OPTIMIZER_BYTES
    else:
        w, g, o = ADAM_WEIGHT_BYTES, ADAM_GRADIENT_BYTES, ADAM_OPTIMIZER_BYTES
    return Memory(n * w, n * g, n * o, acts, 0.0)


def flops_per_token(task: Task) -> float:
    """FLOPs per token per active parameter: 6 (train), 4 (LoRA/QLoRA), 2 (inference)."""
    if task.adapters:
        return 4.0
    return 6.0 if task.trains else 2.0


@dataclass(frozen=True)
class Speed:
    """Runtime of a job: ``runtime_s``, ``tokens_per_s`` (trained or generated),
    ``prefill_s`` and ``decode_s`` (inference; 0 for training), ``bound`` (`compute` or
    `bandwidth`, the decode's limit), ``flops`` (the job's total)."""

    runtime_s: float
    tokens_per_s: float
    prefill_s: float
    decode_s: float
    bound: str
    flops: float


def training_speed(job: Job, peak_tflops: float, gpu_count: int, mfu: float) -> Speed:
    """Training time: ``flops_per_token x N_active x tokens / (gpu_count x peak x MFU)``."""
    if peak_tflops <= 0 or mfu <= 0:
        raise ModelInputError("peak throughput and MFU must be positive")
    flops = flops_per_token(job.task) * job.n_active * job.tokens
    seconds = flops / (gpu_count * peak_tflops * 1e12 * mfu)
    if not seconds > 0:
        raise ModelInputError("the job is too small to time: give more tokens or a larger model")
    return Speed(seconds, job.tokens / seconds, 0.0, 0.0, "compute", flops)


def decode_step_s(
    job: Job, compute_flops_per_s: float, bandwidth_bytes_per_s: float
) -> tuple[float, str]:
    """One decode step of ``job.batch_size`` sequences at their mean length (prompt + half
    the output), s, and its limit: the larger of its FLOPs over ``compute_flops_per_s`` and
    the bytes it reads (weights + the batch's KV cache) over ``bandwidth_bytes_per_s``; in
    transformers' eager loop at least :data:`~app.costing.llm_mbu.TRANSFORMERS_EAGER_STEP_S`
    (``overhead``)."""
    mean_len = job.prompt_tokens + job.output_tokens / 2
    kv = kv_cache_bytes(job.arch, mean_len, 1, job.kv_bytes)
    read = job.n_total * job.precision.weight_bytes + job.batch_size * kv
    step_compute = 2 * job.n_active * job.batch_size / compute_flops_per_s
    step_memory = read / bandwidth_bytes_per_s
    bound = "compute" if step_compute > step_memory else "bandwidth"
    step = max(step_compute, step_memory)
    if job.engine == "transformers" and step < TRANSFORMERS_EAGER_STEP_S:
        return TRANSFORMERS_EAGER_STEP_S, "overhead"
    return step, bound


def inference_speed(
    job: Job,
    peak_tflops: float,
    bandwidth_gb_per_s: float,
    gpu_count: int,
    mfu: float,
    mbu: float,
) -> Speed:
    """Serving time for ``job.tokens`` generated tokens in sequences of ``prompt_tokens`` +
    ``output_tokens``, ``batch_size`` at a time, on ``gpu_count`` GPUs (tensor parallel):
    prefill = prompt FLOPs / (peak x MFU); each decode step = the larger of its FLOPs over
    peak x MFU and the bytes it reads (weights + the batch's KV cache at its mean length)
    over bandwidth x MBU."""
    if min(peak_tflops, bandwidth_gb_per_s, mfu, mbu) <= 0:
        raise ModelInputError("throughput, bandwidth, MFU and MBU must be positive")
    n = job.n_active
    compute = gpu_count * peak_tflops * 1e12 * mfu
    bandwidth = gpu_count * bandwidth_gb_per_s * GB * mbu
    sequences = job.tokens / job.output_tokens
    prefill_flops = 2 * n * job.prompt_tokens * sequences
    prefill = prefill_flops / compute
    step, bound = decode_step_s(job, compute, bandwidth)
    decode = job.tokens / job.batch_size * step
    total = prefill + decode
    if not total > 0:
        raise ModelInputError("the job is too small to time: give more tokens or a larger model")
    flops = prefill_flops + 2 * n * job.tokens
    return Speed(total, job.tokens / total, prefill, decode, bound, flops)
