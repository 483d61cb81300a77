"""Language-model workloads: the catalog's models (``GET /v1/llm/models``) and the estimate of
a training, fine-tuning or serving job's memory, time and cost on each GPU
(``POST /v1/llm/estimate``). Units in field names; every default names its source."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError, model_validator

from app.costing import defaults, floors
from app.costing.llm import Precision, Task
from app.models.answers import Assumption, PricesUsed, SourceRef
from app.models.common import OMITTED, described
from app.models.hf_config import LlmArchitecture, architecture_fields, safetensors_params
from app.models.inputs import ELECTRICITY, STRICT, StrictBody, UsageInputs, not_both, refuse_both

_ONE_MODEL: dict[str, Any] = {
    "oneOf": [
        {"required": ["model"]},
        {"required": ["architecture"]},
        {"required": ["hf_config"]},
    ]
}


class LlmWorkload(StrictBody):
    """A language-model job: which model, what it does, in which precision, on how many tokens."""

    model_config = ConfigDict(**STRICT, json_schema_extra={"allOf": [_ONE_MODEL]})

    model: str = Field(
        default=OMITTED,
        min_length=1,
        max_length=100,
        description="Catalog model id or name (`llama-3.1-8b`, `llama 3 8b`; "
        "`GET /v1/llm/models`).",
    )
    architecture: LlmArchitecture = Field(
        default=OMITTED,
        description="The model's shape instead of a catalog id.",
    )
    hf_config: dict[str, Any] = Field(
        default=OMITTED,
        max_length=2000,
        description="The model's Hugging Face `config.json`, as posted (instead of `model` or "
        "`architecture`; read offline, nothing is downloaded): `num_hidden_layers`, "
        "`hidden_size`, `intermediate_size`, `num_attention_heads`, `num_key_value_heads`, "
        "`head_dim`, `vocab_size`, `max_position_embeddings`, `tie_word_embeddings` and the "
        "experts' keys of Mixtral, Qwen-MoE and DeepSeek; a multimodal config's "
        "`text_config`. The parameter total is derived unless `safetensors_header` gives it.",
    )
    safetensors_header: dict[str, Any] = Field(
        default=OMITTED,
        max_length=100_000,
        description="With `hf_config`: the JSON header of the model's `.safetensors` file (each "
        "tensor's `dtype`, `shape`, `data_offsets`); its shapes give the parameter total. "
        "One file's header (a sharded model: its shards' tensors merged into one object).",
    )
    task: Annotated[Task, Strict(False)] = Field(
        description="`pretrain`, `full_finetune`, `lora`, `qlora` or `inference`."
    )
    precision: Annotated[Precision, Strict(False)] = described(
        "Weights and math: `fp32`, `bf16`, `fp16`, `fp8`, `int8`, `int4` (QLoRA's NF4, 4.127 "
        "bits), `awq` or `gptq` (4-bit groups of 128, 4.156 bits), or llama.cpp's GGUF `q4_k_m`, "
        "`q5_k_m`, `q6_k`, `q8_0`. ",
        defaults.LLM_PRECISION,
    )
    tokens: float = Field(
        ge=1,
        le=1e16,
        description="Tokens trained on (training), or tokens to generate (inference).",
    )
    context_length: int = described(
        "Training sequence length, tokens. ",
        defaults.LLM_SEQUENCE_LENGTH,
        tail=" Inference: prompt + output tokens.",
        ge=1,
        le=10_000_000,
    )
    batch_size: int = described(
        "Sequences processed together over all GPUs. ", defaults.LLM_BATCH_SIZE, ge=1, le=100_000
    )
    prompt_tokens: int = described(
        "Inference: prompt tokens per sequence. ", defaults.LLM_PROMPT_TOKENS, ge=0, le=10_000_000
    )
    output_tokens: int = described(
        "Inference: generated tokens per sequence. ",
        defaults.LLM_OUTPUT_TOKENS,
        ge=1,
        le=10_000_000,
    )
    lora_rank: int = described("LoRA/QLoRA rank. ", defaults.LORA_RANK, ge=1, le=4096)
    activation_checkpointing: bool = described(
        "Training: full activation recomputation. ", defaults.LLM_CHECKPOINTING, default=True
    )
    mfu: float = described(
        "Model FLOPs utilization (pre-training: default per GPU from the curve fitted on "
        "published GPU-hours, `mfu_pretrain_*`). ",
        defaults.LLM_MFU,
        ge=floors.SHARE.value,
        le=1,
    )
    mbu: float = described(
        "Inference: memory bandwidth utilization of decoding. ",
        defaults.LLM_MBU,
        ge=floors.SHARE.value,
        le=1,
    )

    gpu_memory_utilization: float = described(
        "Inference: the share of each GPU's memory the serving engine takes for weights, "
        "activations and KV cache (vLLM's `--gpu-memory-utilization`); sizes "
        "`max_batch_size` and `max_context_tokens`, not whether the weights fit. ",
        defaults.LLM_GPU_MEMORY_UTILIZATION,
        gt=0,
        le=1,
    )

    engine: Literal["transformers", "nemo", "vllm", "tensorrt-llm", "llama.cpp"] = Field(
        default=OMITTED,
        description="The software the job runs in, and its rules. Default: training in "
        "`transformers` (peft; fp8 LoRA in `nemo`), serving a GGUF format in `llama.cpp`, "
        "other serving in `vllm`. `llama.cpp` runs fp16 matrix multiplies at the "
        "FP16-accumulate tensor rate and GGUF prompts on the int8 tensor cores, and runs only "
        "GGUF files (fp32, fp16, bf16 and the GGUF formats); `vllm` takes "
        "`gpu_memory_utilization` of each GPU; `tensorrt-llm` gives the KV cache 0.9 of the "
        "memory left after the weights (its `free_gpu_memory_fraction`); `transformers` and "
        "`llama.cpp` use the whole card. `nemo` only trains; `vllm`, `tensorrt-llm` and "
        "`llama.cpp` only serve.",
    )

    kv_cache_dtype: Literal["auto", "fp8"] = Field(
        default=OMITTED,
        description="Inference: the KV cache's number format. `auto` (default): the weights' "
        "16-bit (fp8 weights: fp8); `fp8`: one byte a value, as vLLM's `--kv-cache-dtype fp8` "
        "stores it (half the memory and decode reads of a 16-bit cache).",
    )

    @model_validator(mode="after")
    def _one_model(self) -> Self:
        given = [x is not None for x in (self.model, self.architecture, self.hf_config)]
        if sum(given) != 1:
            raise ValueError("give exactly one of model, architecture or hf_config")
        if self.kv_cache_dtype is not None and self.task != "inference":
            raise ValueError("kv_cache_dtype is for task inference (a KV cache is served)")
        if self.safetensors_header is not None and self.hf_config is None:
            raise ValueError("safetensors_header goes with hf_config")
        if self.hf_config is not None:
            fields = architecture_fields(self.hf_config)
            if self.safetensors_header is not None:
                fields["params_b"] = safetensors_params(self.safetensors_header) / 1e9
            try:
                self.architecture = LlmArchitecture.model_validate(fields)
            except ValidationError as exc:
                err = exc.errors()[0]
                field = str(err["loc"][0]) if err["loc"] else "architecture"
                raise ValueError(f"hf_config: {field}: {err['msg']}") from None
        return self


class LlmEstimateRequest(LlmWorkload, UsageInputs):
    """An LLM job's memory, time and cost on each GPU (`gpus`, default: every catalog GPU
    with tensor throughput)."""

    model_config = ConfigDict(
        **STRICT,
        json_schema_extra={
            "allOf": [
                _ONE_MODEL,
                not_both("utilization", "utilization_profile"),
                not_both(*ELECTRICITY),
                not_both("tokens", "tokens_per_day"),
            ],
            "examples": [
                {"model": "llama-3.1-8b", "task": "lora", "tokens": 200_000_000},
                {"model": "llama 3 70b", "task": "inference", "precision": "int4", "tokens": 1e6},
                {"model": "llama 3 70b", "task": "qlora", "gpus": ["rtx-4090", "a100-80gb"]},
                {
                    "model": "llama-3.1-8b",
                    "task": "inference",
                    "tokens_per_day": 1e6,
                    "gpus": ["l4"],
                },
            ],
        },
    )

    tokens: float = Field(
        default=OMITTED,
        ge=1,
        le=1e16,
        description="Tokens trained on (training), or tokens to generate (inference). "
        "Optional here: left out, the answer sizes memory only (which GPUs hold the job and "
        "how many), with no time, cost or energy, as each row's note says.",
    )
    gpus: list[Annotated[str, Field(min_length=1, max_length=100)]] = Field(
        default=OMITTED,
        min_length=1,
        max_length=100,
        description="GPU ids or names to answer for. Default: every catalog GPU with tensor "
        "throughput.",
    )
    gpu_count: int = Field(
        default=1, ge=1, le=100_000, description="GPUs the job runs on (sharded evenly)."
    )
    tokens_per_day: float = Field(
        default=OMITTED,
        ge=1,
        le=1e15,
        description="Inference as a service: output tokens generated a day. Each row then "
        "says what serving that volume takes and costs (`serving`: concurrency, tokens/s, "
        "latency, busy hours, $ per million tokens rented around the clock, rented for the "
        "busy hours only, and owned), and its time and cost are one day's. Not with `tokens`.",
    )
    concurrency: int = described(
        "Inference with `tokens_per_day`: sequences served at once. ",
        defaults.LLM_MAX_NUM_SEQS,
        tail=" Left out: as many as the KV cache holds (`max_batch_size`), at most that.",
        ge=1,
        le=100_000,
    )

    @model_validator(mode="after")
    def _serving_is_inference(self) -> Self:
        refuse_both(self, ("tokens", "tokens_per_day"))
        if self.task != "inference" and (
            self.tokens_per_day is not None or self.concurrency is not None
        ):
            raise ValueError("tokens_per_day and concurrency are for task inference")
        if self.concurrency is not None and self.tokens_per_day is None:
            raise ValueError("concurrency needs tokens_per_day (the volume served)")
        return self


class MemoryBreakdown(BaseModel):
    """Memory one GPU holds, GB (1e9 bytes)."""

    weights_gb: float = Field(description="Weights (LoRA: frozen base + adapters).")
    gradients_gb: float = Field(description="Gradients of the trained weights.")
    optimizer_gb: float = Field(description="Adam states (and fp32 master weights).")
    activations_gb: float = Field(description="Training activations and float32 logits.")
    kv_cache_gb: float = Field(description="Inference KV cache.")
    framework_overhead_gb: float = Field(description="CUDA context and kernels.")


class LlmCloudCost(BaseModel):
    """The cheapest comparable (on-demand, not Colab) offer of the GPU."""

    offer_id: str = Field(description="Catalog offer id.")
    provider: str = Field(description="Provider id.")
    price_usd_per_gpu_hour: float = Field(description="Instance price / its GPUs, USD.")
    cost_usd: float = Field(description="`gpus_priced x runtime_h x price_usd_per_gpu_hour`.")
    cost_usd_per_million_tokens: float = Field(description="`cost_usd / tokens x 1e6`.")
    energy_kwh: float = Field(
        description="Energy of the run, kWh: (GPUs x TDP x `gpu_load` + their host: a "
        "datacenter GPU's server share, else the default base power) x runtime_h / 1000 x "
        "the datacenter's PUE (see the answer's assumptions)."
    )
    co2e_kg: float = Field(
        description="Operational emissions, kg CO2e: `energy_kwh` x the region's grid "
        "carbon intensity (default region when none is given)."
    )


class LlmOwnedCost(BaseModel):
    """The job on a desktop of `gpus_priced` of the GPU (catalog price + cheapest barebone)."""

    barebone_id: str | None = Field(
        description="The catalog barebone the desktop is built on (the cheapest with enough "
        "slots for `gpus_priced`)."
    )
    base_power_w: float = Field(
        description="The desktop's power besides its GPUs (CPU, board, drives), W: the "
        "barebone's stated figure, else the default (see the answer's assumptions)."
    )
    lifetime_years: float = Field(
        description="Years the purchase is amortized over (default: see the answer's assumptions)."
    )
    upfront_usd: float = Field(description="Purchase of the desktop, USD.")
    electricity_usd: float = Field(description="Busy power x runtime x electricity price.")
    amortized_purchase_usd: float = Field(
        description="Purchase spread over the busy hours of its lifetime, USD."
    )
    cost_usd: float = Field(description="Electricity + amortized purchase, USD.")
    cost_usd_per_million_tokens: float = Field(description="`cost_usd / tokens x 1e6`.")
    energy_kwh: float = Field(
        description="Energy of the run, kWh: the desktop's busy wall power x runtime_h / 1000 "
        "(an office: no datacenter overhead)."
    )
    co2e_kg: float = Field(
        description="Operational emissions, kg CO2e: `energy_kwh` x the region's grid "
        "carbon intensity (default region when none is given)."
    )


class LlmServing(BaseModel):
    """`tokens_per_day` served on `gpus_priced` of the GPU (a replica; more replicas when
    one would be busy over 24 h a day)."""

    concurrency: int = Field(description="Sequences served at once (the batch).")
    concurrency_basis: str = Field(
        description="Why that many: `given`, `kv_cache` (as many as `max_batch_size`) or "
        "`max_num_seqs` (the engine's cap, when memory holds more)."
    )
    tokens_per_s: float = Field(
        description="Output tokens a second of one replica, prefill included."
    )
    time_to_first_token_s: float = Field(
        description="One prompt's prefill and the first decode step, s (no queueing)."
    )
    inter_token_latency_s: float = Field(
        description="A decode step at `concurrency`, s: the time between a stream's tokens."
    )
    busy_hours_per_day: float = Field(description="Hours a day generating, all replicas together.")
    replicas: int = Field(description="Sets of `gpus_priced` GPUs needed (none busy over 24 h).")
    utilization: float = Field(
        description="`busy_hours_per_day / (24 x replicas)`: the share of the day they work."
    )
    rented_cost_usd_per_day: float | None = Field(
        description="Renting `replicas x gpus_priced` GPUs around the clock, USD a day (null: "
        "no offer)."
    )
    rented_cost_usd_per_million_tokens: float | None = Field(
        description="`rented_cost_usd_per_day / tokens_per_day x 1e6`: a dedicated deployment."
    )
    busy_hours_cost_usd_per_million_tokens: float | None = Field(
        description="Renting only for the busy hours (billed by use, e.g. scaled to zero "
        "between bursts), USD per million tokens."
    )
    owned_cost_usd_per_day: float | None = Field(
        description="Owned desktops (one per replica), USD a day: purchase less resale over "
        "its lifetime's days, electricity at busy power for the busy hours and at idle power "
        "for the rest of the day (a server stays on). Null: not buildable."
    )
    owned_cost_usd_per_million_tokens: float | None = Field(
        description="`owned_cost_usd_per_day / tokens_per_day x 1e6`."
    )


class LlmGpuEstimate(BaseModel):
    """The job on one GPU model."""

    gpu_id: str = Field(description="GPU id.")
    memory_gb: float = Field(
        description="Memory of one GPU as its data sheet states it, binary GB (2^30 bytes: a "
        "'24 GB' card holds 25.8e9 bytes); the job's needs are in GB of 1e9 bytes."
    )
    memory_gb_per_gpu: float = Field(description="What the job needs per GPU on `gpu_count`.")
    memory_breakdown: MemoryBreakdown = Field(description="What one GPU holds, GB.")
    fits: bool = Field(description="Whether `gpu_count` of them hold the job.")
    gpus_needed: int | None = Field(description="Fewest GPUs that hold it (null: none).")
    gpus_priced: int | None = Field(
        description="GPUs the time and cost are for: `gpu_count` when it fits, else `gpus_needed`."
    )
    max_batch_size: int | None = Field(
        default=None,
        description="Inference: the most sequences of `context_length` tokens (prompt + "
        "output) whose KV cache fits on the `gpus_priced` GPUs at once: the concurrency a "
        "server that batches by memory (vLLM's continuous batching) reaches. The engine takes "
        "`gpu_memory_utilization` of each GPU, less the framework overhead, the weights and "
        "a profile pass of one sequence's activations; the KV cache gets the rest. 0: the "
        "weights leave no room; null for training, or when no count of this GPU holds them.",
    )
    max_context_tokens: int | None = Field(
        default=None,
        description="Inference: the longest sequence (prompt + output, tokens) each of "
        "`batch_size` sequences can have on the `gpus_priced` GPUs, at most the model's "
        "context length (`max_position_embeddings`). Null as for `max_batch_size`.",
    )
    serving: LlmServing | None = Field(
        default=None,
        description="With `tokens_per_day`: serving that volume (null otherwise, or when the "
        "weights leave no KV cache room or the GPU has no speed figure).",
    )
    peak_tflops: float | None = Field(description="Dense tensor throughput used, TFLOPS.")
    mfu: float | None = Field(
        description="Model FLOPs utilization the time assumes: the request's `mfu`, else for "
        "pre-training the curve fitted on published GPU-hours at this GPU's balance and the "
        "model's width, else the default (see the answer's assumptions)."
    )
    runtime_s: float | None = Field(description="Job time, s (null: no throughput figure).")
    tokens_per_s: float | None = Field(description="Tokens trained or generated per s.")
    bound: str | None = Field(
        description="Inference decode: `bandwidth`, `compute`, or `overhead` (transformers' "
        "eager loop, slower than either)."
    )
    cloud: LlmCloudCost | None = Field(description="Cheapest on-demand offer; null: none.")
    owned: LlmOwnedCost | None = Field(description="A desktop of them; null: not buildable.")
    cost_usd: float | None = Field(description="Cheapest of cloud and owned, USD.")
    cost_usd_per_million_tokens: float | None = Field(description="`cost_usd / tokens x 1e6`.")
    energy_kwh: float | None = Field(
        description="Energy of the job, kWh, where `cost_usd` runs it: the owned desktop's when "
        "it is the cheaper, else rented (`cloud.energy_kwh`'s formula, also when no offer is "
        "priced); null when the job is not timed."
    )
    co2e_kg: float | None = Field(
        description="Operational emissions of the job, kg CO2e: `energy_kwh` x the request "
        "region's grid carbon intensity (default: the catalog's world average)."
    )
    note: str | None = Field(description="Why a figure is missing.")


class LlmHostedPrice(BaseModel):
    """A hosted API's price for the same model (genai-prices' bundled snapshot; see the
    answer's `sources`), and what `tokens_per_day` with their prompts would cost there."""

    provider: str = Field(description="Provider id, as genai-prices names it.")
    model_id: str = Field(description="The provider's model id (often the instruct variant).")
    input_usd_per_million_tokens: float = Field(description="Prompt tokens, USD per million.")
    output_usd_per_million_tokens: float = Field(description="Output tokens, USD per million.")
    cost_usd_per_day: float = Field(
        description="`tokens_per_day` output tokens and their prompts (`prompt_tokens` per "
        "`output_tokens`), USD a day."
    )
    cost_usd_per_million_tokens: float = Field(
        description="`cost_usd_per_day / tokens_per_day x 1e6`: per million output tokens "
        "with their prompts, as `serving` counts them."
    )


class LlmEstimateResult(BaseModel):
    """Per-GPU estimates, cheapest fitting first, then the ones that do not fit."""

    model: dict[str, Any] = Field(description="The model and job as resolved.")
    flops: float | None = Field(description="The job's FLOPs (null: no tokens given).")
    estimates: list[LlmGpuEstimate] = Field(
        description="One per GPU: fitting first, cheapest first."
    )
    assumptions: list[Assumption] = Field(
        description="Every default and formula choice, with source."
    )
    sources: list[SourceRef] = Field(description="Catalog figures used (model shape, totals).")
    prices: PricesUsed
    warnings: list[str] = Field(description="Prices older than `prices.max_age_days`.")
    hosted_apis: list[LlmHostedPrice] = Field(
        default_factory=list,
        description="With `tokens_per_day` and a catalog model: hosted APIs serving the same "
        "model, cheapest first (empty otherwise, or when none lists it).",
    )


class LlmModelPublic(BaseModel):
    """A catalog language model."""

    id: str = Field(description="Catalog id, e.g. `llama-3.1-8b`.")
    name: str = Field(description="Display name.")
    aliases: list[str] = Field(description="Names as people type them.")
    family: str = Field(description="Model family, e.g. `llama-3.1`.")
    hf_repo: str = Field(description="Hugging Face repository.")
    params_b: float = Field(description="Published total parameters, billions.")
    active_params_b: float = Field(description="Parameters per token, billions (MoE < total).")
    layers: int = Field(description="`num_hidden_layers`.")
    hidden_size: int = Field(description="`hidden_size`.")
    intermediate_size: int = Field(description="`intermediate_size` (dense MLP width).")
    heads: int = Field(description="`num_attention_heads`.")
    kv_heads: int = Field(description="`num_key_value_heads`.")
    head_dim: int = Field(description="Per-head width.")
    vocab_size: int = Field(description="`vocab_size`.")
    context_length: int = Field(description="Tokens.")
    experts: int = Field(description="Routed experts (0: dense).")
    experts_per_token: int = Field(description="Routed experts per token.")
    config_source: str = Field(description="Where the shape was read (repo, path, commit).")
    params_source: str = Field(description="Where the totals are published.")
    as_of: dt.date = Field(description="Release date.")


class LlmModelsPublic(BaseModel):
    data: list[LlmModelPublic] = Field(description="The models, in catalog order.")
    count: int = Field(description="How many.")
