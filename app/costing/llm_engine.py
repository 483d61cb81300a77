"""The software an LLM job runs in, and the rules it brings: which tasks and number formats it
runs, which tensor rate its 16-bit matrix multiplies use, and how much of each GPU it leaves to
the KV cache.

* ``transformers`` (Hugging Face transformers with peft; PyTorch): trains and generates.
  bf16/fp16 GEMMs accumulate in FP32 (PyTorch's cuBLAS default). It allocates the KV cache as
  the sequences grow: nothing held back beyond the framework overhead.
* ``nemo`` (NVIDIA NeMo with Transformer Engine): trains, fp8 included (NVIDIA's MLPerf Training
  Llama 2 70B LoRA runs).
* ``vllm``: serves. It takes ``gpu_memory_utilization`` of each card's total for weights,
  activations and the KV cache (vLLM engine arguments; default 0.9).
* ``tensorrt-llm``: serves. Its KV cache takes ``free_gpu_memory_fraction`` (default 0.9) of the
  memory still free once the weights and activations are placed (TensorRT-LLM docs, "How to
  Change KV Cache Behavior"; ``KvCacheConfig``).
* ``llama.cpp``: serves GGUF files (F32, F16, BF16 and the quantized formats). Its 16-bit
  matrix multiplies run cuBLAS with FP16 accumulate (``CUBLAS_COMPUTE_16F``; llama.cpp PR #3816,
  which proposed FP32 compute, was closed): twice the FP32-accumulate rate on GeForce cards.
  Quantized prompts run its MMQ kernels on the int8 tensor cores. It allocates the KV cache of
  the context it is given: nothing held back beyond the framework overhead.

Pure Python; no imports of ours but the LLM model's vocabulary.
"""

from __future__ import annotations

from enum import StrEnum

from app.costing.errors import InvalidInput as ModelInputError
from app.costing.llm import Precision, Task

TRT_FREE_MEMORY_FRACTION = 0.9
"""TensorRT-LLM's default ``KvCacheConfig.free_gpu_memory_fraction``: the KV cache's share of
the memory free after the weights and activations (nvidia.github.io/TensorRT-LLM
examples/kvcacheconfig.html, "The default for free_gpu_memory_fraction is 0.9"; llm-api
reference ``KvCacheConfig``, 1.3/1.4 releases, 2026)."""


VLLM_TP_EXTRA_GIB = 1.79
"""What vLLM holds on each GPU outside PyTorch's allocator beyond a single GPU's when it runs
tensor parallel (NCCL and custom all-reduce buffers): vllm-project/vllm PR #10511's memory
profile of Meta-Llama-3-8B on an 80 GB GPU printed non_torch_memory 1.79 GiB at ``-tp 1`` and
3.58 GiB at ``-tp 2`` (2024-12-14). Counted on top of the framework overhead from two GPUs."""


class Engine(StrEnum):
    """The engine a job runs in (see the module's docstring for each one's rules)."""

    TRANSFORMERS = "transformers"
    NEMO = "nemo"
    VLLM = "vllm"
    TENSORRT_LLM = "tensorrt-llm"
    LLAMA_CPP = "llama.cpp"

    @property
    def trains(self) -> bool:
        return self in (Engine.TRANSFORMERS, Engine.NEMO)

    @property
    def serves(self) -> bool:
        return self is not Engine.NEMO

    @property
    def takes_total_share(self) -> bool:
        """Whether it takes a share of each card's total (vLLM's ``gpu_memory_utilization``)."""
        return self is Engine.VLLM

    def parallel_overhead_gb(self, gpu_count: int) -> float:
        """GB per GPU the engine holds for tensor parallelism on ``gpu_count`` GPUs (vLLM:
        :data:`VLLM_TP_EXTRA_GIB` from two GPUs; the others: not measured, 0)."""
        return VLLM_TP_EXTRA_GIB * 2**30 / 1e9 if self is Engine.VLLM and gpu_count >= 2 else 0.0

    @property
    def kv_share_of_free(self) -> float:
        """The KV cache's share of the memory free after weights and activations."""
        return TRT_FREE_MEMORY_FRACTION if self is Engine.TENSORRT_LLM else 1.0

    @property
    def fp16_accumulate(self) -> bool:
        """Whether its fp16 matrix multiplies accumulate in FP16 (llama.cpp's cuBLAS path)."""
        return self is Engine.LLAMA_CPP


DEFAULT_RULE = (
    "default engine: training in transformers with peft (fp8 LoRA in NeMo, which trains on an "
    "fp8 base with Transformer Engine; peft has no fp8 base); serving a GGUF format in llama.cpp, "
    "which reads GGUF files; any other serving in vLLM, whose continuous batching and memory "
    "sizing the serving figures follow"
)


def default_engine(task: Task, precision: Precision) -> Engine:
    """The engine a job of ``task`` in ``precision`` runs in when none is named
    (:data:`DEFAULT_RULE`)."""
    if task is not Task.INFERENCE:
        return (
            Engine.NEMO if task is Task.LORA and precision is Precision.FP8 else Engine.TRANSFORMERS
        )
    return Engine.LLAMA_CPP if precision.gguf else Engine.VLLM


_LLAMA_CPP_FORMATS = frozenset({Precision.FP32, Precision.FP16, Precision.BF16}) | frozenset(
    p for p in Precision if p.gguf
)


def check_engine(engine: Engine, task: Task, precision: Precision) -> None:
    """Raise :class:`ModelInputError` when ``engine`` cannot run ``task`` in ``precision``."""
    if task is Task.INFERENCE and not engine.serves:
        raise ModelInputError(f"engine {engine} trains; serve with vllm, tensorrt-llm, "
                              "llama.cpp or transformers")  # fmt: skip
    if task is not Task.INFERENCE and not engine.trains:
        raise ModelInputError(f"engine {engine} serves models and does not train them: "
                              f"task {task.value} runs in transformers or nemo")  # fmt: skip
    if engine is Engine.LLAMA_CPP and precision not in _LLAMA_CPP_FORMATS:
        hint = {Precision.INT8: " (its 8-bit format is q8_0)",
                Precision.INT4: " (its 4-bit format is q4_k_m)",
                Precision.AWQ: " (its 4-bit format is q4_k_m)",
                Precision.GPTQ: " (its 4-bit format is q4_k_m)"}  # fmt: skip
        raise ModelInputError(
            f"llama.cpp runs GGUF files (fp32, fp16, bf16, q4_k_m, q5_k_m, q6_k, q8_0), "
            f"not {precision.value}{hint.get(precision, '')}"
        )
    if precision.gguf and engine is not Engine.LLAMA_CPP:
        raise ModelInputError(f"{precision.value} is a GGUF format: it runs in llama.cpp, "
                              f"not {engine}")  # fmt: skip
    if engine is Engine.TRANSFORMERS and task is Task.LORA and precision is Precision.FP8:
        raise ModelInputError("peft does not train adapters on an fp8 base: fp8 LoRA runs in "
                              "nemo (Transformer Engine)")  # fmt: skip
