"""A Hugging Face ``config.json`` (and a ``.safetensors`` header) read as a language model's
shape, offline: the request posts the files' JSON, nothing is downloaded. Names follow the
transformers configurations of Llama, Mistral, Mixtral, Qwen2/Qwen2-MoE, Gemma and
DeepSeek (``num_hidden_layers``, ``num_key_value_heads``, ``num_local_experts`` or
``n_routed_experts``, ``first_k_dense_replace`` ...); a multimodal config's ``text_config``
is the language model's. Errors are :class:`ValueError` naming the key (a 422).
:class:`LlmArchitecture` is the same shape given field by field."""

from __future__ import annotations

import math
from typing import Any

from pydantic import Field

from app.models.common import OMITTED
from app.models.inputs import StrictBody

# Our field <- the config keys that may hold it, first present wins.
_KEYS: dict[str, tuple[str, ...]] = {
    "layers": ("num_hidden_layers", "n_layer", "num_layers"),
    "hidden_size": ("hidden_size", "n_embd", "d_model"),
    "intermediate_size": ("intermediate_size", "ffn_dim", "n_inner"),
    "heads": ("num_attention_heads", "n_head"),
    "kv_heads": ("num_key_value_heads", "num_kv_heads"),
    "head_dim": ("head_dim",),
    "vocab_size": ("vocab_size",),
    "context_length": ("max_position_embeddings", "n_positions", "max_sequence_length"),
    "tied_embeddings": ("tie_word_embeddings",),
    "experts": ("num_local_experts", "n_routed_experts", "num_experts"),
    "experts_per_token": ("num_experts_per_tok", "moe_top_k"),
    "shared_experts": ("n_shared_experts",),
    "moe_intermediate_size": ("moe_intermediate_size",),
    "dense_layers": ("first_k_dense_replace",),
}
_REQUIRED = ("layers", "hidden_size", "intermediate_size", "heads", "vocab_size", "context_length")


def architecture_fields(config: dict[str, Any]) -> dict[str, Any]:
    """The ``LlmArchitecture`` fields of a posted ``config.json``. A mixture of experts whose
    config has no ``moe_intermediate_size`` (Mixtral) uses ``intermediate_size`` for its
    experts. Raises :class:`ValueError` naming a missing key."""
    text = config.get("text_config")
    cfg = text if isinstance(text, dict) else config
    out: dict[str, Any] = {}
    for field, keys in _KEYS.items():
        for key in keys:
            if cfg.get(key) is not None:
                out[field] = cfg[key]
                break
    missing = [f"{f} ({' or '.join(_KEYS[f])})" for f in _REQUIRED if f not in out]
    if missing:
        raise ValueError(f"hf_config lacks {', '.join(missing)}")
    out |= _sliding_window(cfg, int(out["layers"]))
    types = cfg.get("layer_types")
    if isinstance(types, list) and (linear := sum(t in _LINEAR for t in types)):
        out["linear_layers"] = linear
    if out.get("experts") and "moe_intermediate_size" not in out:
        out["moe_intermediate_size"] = out["intermediate_size"]
    if not out.get("experts"):
        for key in ("experts", "experts_per_token", "shared_experts", "moe_intermediate_size"):
            out.pop(key, None)
    return out


# `layer_types` values of layers with a fixed-size state instead of a KV cache (transformers'
# Qwen3-Next config writes "linear_attention"; Mamba hybrids "mamba").
_LINEAR = frozenset({"linear_attention", "mamba"})


def _sliding_window(cfg: dict[str, Any], layers: int) -> dict[str, int]:
    """``sliding_window`` and ``sliding_window_layers`` of a config: its ``layer_types``
    ("sliding_attention" layers, transformers >= 4.53), else Gemma 2's alternation (even
    layers local), Gemma 3's ``sliding_window_pattern`` (every n-th layer global), else every
    layer (Mistral 7B v0.1); none when ``use_sliding_window`` is false (Qwen2) or the window
    is null."""
    window = cfg.get("sliding_window") or cfg.get("sliding_window_size")
    if not isinstance(window, int) or window <= 0 or cfg.get("use_sliding_window") is False:
        return {}
    types = cfg.get("layer_types")
    if isinstance(types, list):
        local = sum(t == "sliding_attention" for t in types)
    elif cfg.get("model_type") == "gemma2":
        local = (layers + 1) // 2
    elif isinstance(pattern := cfg.get("sliding_window_pattern"), int) and pattern > 0:
        local = layers - layers // pattern
    else:
        local = layers
    return {"sliding_window": window, "sliding_window_layers": local} if local else {}


def safetensors_params(header: dict[str, Any]) -> int:
    """Parameters in a ``.safetensors`` file's JSON header: the product of each tensor's
    ``shape``, summed (``__metadata__`` is not a tensor). Raises :class:`ValueError` for a
    tensor without an integer shape (an index file's ``weight_map`` has none)."""
    total = 0
    for name, tensor in header.items():
        if name == "__metadata__":
            continue
        shape = tensor.get("shape") if isinstance(tensor, dict) else None
        if not isinstance(shape, list) or not all(
            isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= 10**9 for d in shape
        ):
            raise ValueError(
                f"safetensors_header: tensor {name[:80]!r} has no shape (a list of sizes); "
                "post the header of a .safetensors file, not its index"
            )
        total += math.prod(shape)
    if total <= 0:
        raise ValueError("safetensors_header holds no tensors")
    return total


class LlmArchitecture(StrictBody):
    """A model's shape, as its Hugging Face ``config.json`` names it (instead of a catalog
    id). Mixture-of-experts and latent-attention fields default to a dense model."""

    params_b: float = Field(
        default=OMITTED, gt=0, le=10_000, description="Published total, billions (else derived)."
    )
    active_params_b: float = Field(
        default=OMITTED, gt=0, le=10_000, description="Parameters per token, billions (MoE)."
    )
    layers: int = Field(ge=1, le=1000, description="`num_hidden_layers`.")
    hidden_size: int = Field(ge=1, le=1_000_000, description="`hidden_size`.")
    intermediate_size: int = Field(ge=1, le=1_000_000, description="`intermediate_size`.")
    heads: int = Field(ge=1, le=10_000, description="`num_attention_heads`.")
    kv_heads: int = Field(
        default=OMITTED, ge=1, le=10_000, description="`num_key_value_heads` (default: heads)."
    )
    head_dim: int = Field(
        default=OMITTED, ge=1, le=10_000, description="`head_dim` (default: hidden / heads)."
    )
    vocab_size: int = Field(ge=1, le=10_000_000, description="`vocab_size`.")
    context_length: int = Field(
        ge=1, le=10_000_000, description="`max_position_embeddings`, tokens."
    )
    tied_embeddings: bool = Field(default=False, description="`tie_word_embeddings`.")
    experts: int = Field(default=0, ge=0, le=10_000, description="Routed experts (0: dense).")
    experts_per_token: int = Field(default=0, ge=0, le=10_000, description="Experts per token.")
    shared_experts: int = Field(default=0, ge=0, le=10_000, description="Shared experts.")
    moe_intermediate_size: int = Field(default=0, ge=0, le=1_000_000, description="Expert width.")
    dense_layers: int = Field(default=0, ge=0, le=1000, description="Leading dense layers.")
    sliding_window: int = Field(
        default=0, ge=0, le=10_000_000, description="`sliding_window`, tokens (0: none)."
    )
    sliding_window_layers: int = Field(
        default=0, ge=0, le=1000, description="Layers attending to the window only."
    )
    linear_layers: int = Field(
        default=0,
        ge=0,
        le=1000,
        description="Linear-attention or state-space layers (hybrid models: Qwen3-Next's "
        "`linear_attention`, Mamba): no per-token KV cache.",
    )
