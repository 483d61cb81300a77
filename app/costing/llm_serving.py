"""Serving a language model: what a serving engine fits beside the weights (the longest
context, the largest batch) and what a daily volume of tokens takes at a concurrency
(tokens/s, time to first token, inter-token latency, busy hours a day).

Sources: the KV cache per token (Pope et al. 2022 §2, :func:`app.costing.llm.kv_cache_bytes`);
vLLM's sizing of it (``gpu_memory_utilization`` of each card, less the weights and a profile
pass's activations: vllm-project/vllm issue #8185); the decode step's roofline
(:func:`app.costing.llm.decode_step_s`). Pure Python; units in names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from app.costing.errors import InvalidInput as ModelInputError
from app.costing.llm import (
    GB,
    Architecture,
    Job,
    Speed,
    Task,
    card_gb,
    inference_speed,
    kv_cache_bytes,
)
from app.costing.llm_engine import Engine


@dataclass(frozen=True)
class ServingRoom:
    """What a serving engine leaves for the KV cache: ``max_batch`` (sequences of
    ``sequence_length`` tokens at once) and ``max_context``
    (tokens per sequence at ``batch_size``, at most the model's context length). Both 0
    when the weights do not fit in the engine's share."""

    max_batch: int
    max_context: int


def profile_activation_bytes_per_token(arch: Architecture) -> float:
    """16-bit activations per token of the engine's profile forward pass at its peak, the
    MLP: gate and up projections and their product (3 x intermediate) plus the hidden state.
    vLLM sizes the KV cache with what is left after profiling a forward pass of
    ``max_num_batched_tokens`` tokens (``max_model_len`` when prefill is not chunked;
    vllm-project/vllm issue #8185)."""
    width = max(arch.intermediate_size, arch.moe_intermediate_size * arch.experts_per_token)
    return (3 * width + arch.hidden_size) * 2.0


def serving_room(
    job: Job, gpu_count: int, memory_gb: float, overhead_gb: float, memory_utilization: float
) -> ServingRoom:
    """The largest batch and the longest context a serving engine fits on ``gpu_count`` GPUs
    of ``memory_gb`` (a data sheet's figure, binary: :func:`card_gb`), tensor parallel: it
    takes ``memory_utilization`` of each card (vLLM's ``gpu_memory_utilization``), less
    ``overhead_gb`` (CUDA context; vLLM's tensor-parallel buffers on top from two GPUs,
    :meth:`Engine.parallel_overhead_gb`) per GPU, the weights, and the activations of a profile
    pass as long as one sequence (:func:`profile_activation_bytes_per_token`); the KV cache
    (:func:`kv_cache_bytes`, Pope et al. 2022 §2) gets the rest, or the job's engine's share
    of the rest (TensorRT-LLM's ``free_gpu_memory_fraction``). So a sequence of ``s``
    tokens costs ``s x (KV per token x batch + activations per token)``. Raises
    :class:`ModelInputError` for a training job."""
    if job.task is not Task.INFERENCE:
        raise ModelInputError("batch and context room are figures of inference")
    weights = job.n_total * job.precision.weight_bytes
    engine = Engine(job.engine) if job.engine else None
    if engine is not None:
        overhead_gb += engine.parallel_overhead_gb(gpu_count)
    usable = gpu_count * (memory_utilization * card_gb(memory_gb) - overhead_gb) * GB - weights
    act = profile_activation_bytes_per_token(job.arch)
    free = engine.kv_share_of_free if engine is not None else 1.0
    seq = job.sequence_length
    room = free * (usable - seq * act)
    per_seq = kv_cache_bytes(job.arch, seq, 1, job.kv_bytes)
    if room <= 0 or per_seq <= 0:
        return ServingRoom(0, 0)
    batch = math.floor(room / per_seq + 1e-9)
    context = _longest(job, free * usable, free * act)
    return ServingRoom(batch, min(context, job.arch.context_length))


def _longest(job: Job, room: float, act_per_token: float) -> int:
    """The longest sequence ``s`` whose KV cache for ``job.batch_size`` sequences plus
    ``s x act_per_token`` fits ``room`` bytes: linear in ``s`` up to the sliding window, then
    only the full-attention layers grow (:func:`kv_cache_bytes`)."""
    a = job.arch
    per_token = kv_cache_bytes(a, 1, job.batch_size, job.kv_bytes)
    s = room / (per_token + act_per_token)
    if not a.sliding_window or not a.sliding_window_layers or s <= a.sliding_window:
        return max(0, math.floor(s + 1e-9))
    per_layer = per_token / (a.layers - a.linear_layers)  # every cached layer holds one token
    windows = per_layer * a.sliding_window_layers * a.sliding_window
    growing = per_layer * (a.layers - a.sliding_window_layers - a.linear_layers) + act_per_token
    return math.floor((room - windows) / growing + 1e-9)


def gpu_load(speed: Speed, decode_load: float) -> float:
    """The share of TDP a job's GPUs draw on average over ``speed.runtime_s``: TDP while
    prefilling, training or decoding compute-bound, ``decode_load`` x TDP while decoding is
    bandwidth- or overhead-bound (the time-weighted mean of the two)."""
    if speed.runtime_s <= 0 or speed.decode_s <= 0 or speed.bound == "compute":
        return 1.0
    return (speed.prefill_s + speed.decode_s * decode_load) / speed.runtime_s


@dataclass(frozen=True)
class Serving:
    """A daily volume served at ``concurrency`` sequences at once on one set of GPUs (a
    replica): ``tokens_per_s`` generated (prefill included), ``time_to_first_token_s`` (one
    prompt's prefill and the first decode step, no queueing), ``inter_token_latency_s`` (a
    decode step at that concurrency), ``busy_hours_per_day`` of all replicas together,
    ``replicas`` (sets of GPUs needed so that none is busy over 24 h a day) and ``bound``
    (the decode step's limit)."""

    concurrency: int
    tokens_per_s: float
    time_to_first_token_s: float
    inter_token_latency_s: float
    busy_hours_per_day: float
    replicas: int
    bound: str
    gpu_load: float = 1.0

    @property
    def utilization(self) -> float:
        """Share of the replicas' day they are busy, 0-1."""
        return self.busy_hours_per_day / (24.0 * self.replicas)


def serve(
    job: Job,
    peak_tflops: float,
    bandwidth_gb_per_s: float,
    gpu_count: int,
    mfu: float,
    mbu: float,
    concurrency: int,
    tokens_per_day: float,
    decode_load: float = 1.0,
) -> Serving:
    """``tokens_per_day`` output tokens served ``concurrency`` sequences at a time on
    ``gpu_count`` GPUs of ``peak_tflops`` and ``bandwidth_gb_per_s`` (tensor parallel): the
    time is :func:`~app.costing.llm.inference_speed`'s at that batch (continuous batching
    keeps it full); ``decode_load`` is the share of TDP bandwidth-bound decoding draws
    (:func:`gpu_load`). Raises :class:`ModelInputError` for a training job or a concurrency
    below 1."""
    if job.task is not Task.INFERENCE or concurrency < 1 or not tokens_per_day > 0:
        raise ModelInputError("serving needs an inference job, concurrency >= 1 and tokens")
    batched = replace(job, batch_size=concurrency, tokens=tokens_per_day)
    speed = inference_speed(batched, peak_tflops, bandwidth_gb_per_s, gpu_count, mfu, mbu)
    step = speed.decode_s / (tokens_per_day / concurrency)  # the day's steps, one each
    prompt = speed.prefill_s / (tokens_per_day / job.output_tokens)  # one sequence's prefill
    busy_h = speed.runtime_s / 3600.0
    replicas = max(1, math.ceil(busy_h / 24.0 - 1e-9))
    return Serving(
        concurrency, speed.tokens_per_s, prompt + step, step, busy_h, replicas, speed.bound,
        gpu_load(speed, decode_load),
    )  # fmt: skip
