"""The number formats an LLM job's weights and math run in, with the bits each stored weight
takes (sources beside each figure). Pure Python; no imports of ours but the GGUF table.
"""

from __future__ import annotations

from enum import StrEnum

from app.costing.llm_mbu import GGUF_LLAMA3_8B_GIB, gguf_bits_per_weight

# QLoRA's 4-bit NormalFloat with double quantization: 4 bits + 0.127 bits of quantization
# constants per parameter (Dettmers et al. 2023, "QLoRA", arXiv 2305.14314 §3).
NF4_BITS_PER_PARAM = 4.127
# AWQ and GPTQ checkpoints (group size 128): 4-bit weights plus, per group of 128, a 16-bit
# scale and a packed 4-bit zero point: 4 + 20 / 128 = 4.156 bits (Lin et al. 2023, "AWQ",
# arXiv 2306.00978 §5.1: INT4 weights, group size 128; Frantar et al. 2022, "GPTQ"; the
# `qweight`/`qzeros`/`scales` tensors AutoAWQ and AutoGPTQ write).
GROUPED_INT4_BITS_PER_PARAM = 4.0 + 20 / 128


class LlmPrecision(StrEnum):
    """Number format of the (base) weights and of the tensor-core math. (Named apart from the
    memory presets' ``Precision`` so the OpenAPI document gives each enum its own name.)"""

    FP32 = "fp32"
    BF16 = "bf16"
    FP16 = "fp16"
    FP8 = "fp8"
    INT8 = "int8"
    INT4 = "int4"
    AWQ = "awq"
    GPTQ = "gptq"
    # llama.cpp's GGUF formats (inference): bits per weight from their file sizes.
    Q4_K_M = "q4_k_m"
    Q5_K_M = "q5_k_m"
    Q6_K = "q6_k"
    Q8_0 = "q8_0"

    @property
    def weight_bytes(self) -> float:
        """Bytes per stored weight (int4: QLoRA's NF4 with double quantization; awq/gptq:
        4-bit groups of 128; a GGUF format: :func:`app.costing.llm_mbu.gguf_bits_per_weight`)."""
        if self.gguf:
            return gguf_bits_per_weight(self.value) / 8
        if self.value in ("awq", "gptq"):
            return GROUPED_INT4_BITS_PER_PARAM / 8
        return {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0}.get(
            self.value, NF4_BITS_PER_PARAM / 8
        )

    @property
    def gguf(self) -> bool:
        """One of llama.cpp's GGUF formats (its prefill runs the int8 MMQ kernels)."""
        return self.value in GGUF_LLAMA3_8B_GIB

    @property
    def weight_only(self) -> bool:
        """Weight-only quantized: stored in fewer bits, dequantized to 16-bit math (int8,
        int4, the GGUF formats); their decode reads at :data:`app.costing.llm_mbu.QUANTIZED`."""
        return self.math == "16-bit" and self.weight_bytes < 2.0

    @property
    def math(self) -> str:
        """The tensor throughput the arithmetic runs at: weight-only int8/int4 dequantize to
        16 bits before the matmul (LLM.int8(), QLoRA, llama.cpp, AWQ/GPTQ kernels)."""
        return {"fp32": "fp32", "fp8": "fp8"}.get(self.value, "16-bit")


Precision = LlmPrecision  # the name the model's code uses
