"""Any model from its Hugging Face `config.json` and `.safetensors` header (issue 44 part 8):
read offline from the posted JSON, the shape gives the published parameter totals and the
same answer as the catalog model of that config."""

from __future__ import annotations

import pytest

from tests.curated import rows

# curated/llm_models.csv column -> the config.json key transformers writes it under.
HF_KEYS = {
    "layers": "num_hidden_layers", "hidden_size": "hidden_size",
    "intermediate_size": "intermediate_size", "heads": "num_attention_heads",
    "kv_heads": "num_key_value_heads", "head_dim": "head_dim", "vocab_size": "vocab_size",
    "context_length": "max_position_embeddings",
}  # fmt: skip
# The bf16 checkpoint of meta-llama/Llama-3.1-8B: model.safetensors.index.json's
# "total_size" is 16,060,522,496 bytes, 2 bytes a parameter.
LLAMA31_8B_PARAMS = 16_060_522_496 / 2


def _config(model_id: str) -> dict:
    row = rows("llm_models")[model_id]
    cfg = {hf: int(row[ours]) for ours, hf in HF_KEYS.items()}
    cfg["tie_word_embeddings"] = row["tied_embeddings"] == "true"
    if int(row["experts"]):
        cfg["num_local_experts"] = int(row["experts"])
        cfg["num_experts_per_tok"] = int(row["experts_per_token"])
    return cfg


def _estimate(client, **body) -> dict:
    resp = client.post("/v1/llm/estimate", json={"task": "inference", "gpus": ["l4"]} | body)
    assert resp.status_code == 200, resp.text
    return resp.json()


def test_llama_3_1_8b_config_gives_its_published_parameter_count(client) -> None:
    body = _estimate(client, hf_config=_config("llama-3.1-8b"))
    assert body["model"]["params_b"] * 1e9 == pytest.approx(LLAMA31_8B_PARAMS, abs=1)


def test_a_config_answers_as_its_catalog_model(client) -> None:
    cfg = _config("llama-3.1-8b") | {"architectures": ["LlamaForCausalLM"], "rope_theta": 5e5}
    mine = _estimate(client, hf_config=cfg)["estimates"][0]
    catalog = _estimate(client, model="llama-3.1-8b")["estimates"][0]
    # The catalog row states the rounded total (8B); the config derives 8.03B.
    assert mine["memory_gb_per_gpu"] == pytest.approx(catalog["memory_gb_per_gpu"], rel=0.01)
    assert mine["memory_breakdown"]["kv_cache_gb"] == catalog["memory_breakdown"]["kv_cache_gb"]


def test_a_mixture_of_experts_config_activates_its_experts_share(client) -> None:
    """Mixtral 8x7B: 46.7B in total, 12.9B active (Mistral AI's announcement)."""
    body = _estimate(client, hf_config=_config("mixtral-8x7b"))
    assert body["model"]["params_b"] == pytest.approx(46.7, rel=0.01)
    assert body["model"]["active_params_b"] == pytest.approx(12.9, rel=0.02)


def test_a_multimodal_configs_text_config_is_the_language_model(client) -> None:
    body = _estimate(client, hf_config={"model_type": "x", "text_config": _config("llama-3.1-8b")})
    assert body["model"]["params_b"] * 1e9 == pytest.approx(LLAMA31_8B_PARAMS, abs=1)


def test_a_safetensors_header_gives_the_total(client) -> None:
    header = {
        "__metadata__": {"format": "pt"},
        "model.embed_tokens.weight": {"dtype": "BF16", "shape": [128256, 4096], "data_offsets": [0, 1]},
        "lm_head.weight": {"dtype": "BF16", "shape": [128256, 4096], "data_offsets": [1, 2]},
        "model.norm.weight": {"dtype": "BF16", "shape": [4096], "data_offsets": [2, 3]},
    }  # fmt: skip
    body = _estimate(client, hf_config=_config("llama-3.1-8b"), safetensors_header=header)
    assert body["model"]["params_b"] * 1e9 == 2 * 128256 * 4096 + 4096


@pytest.mark.parametrize(
    "body",
    [
        {"hf_config": {"hidden_size": 4096}},  # no layers, heads ...
        {"hf_config": {**{"num_hidden_layers": True}, "hidden_size": 1, "intermediate_size": 1,
                        "num_attention_heads": 1, "vocab_size": 1, "max_position_embeddings": 1}},
        {"hf_config": {"num_hidden_layers": 2}, "model": "llama-3.1-8b"},
        {"model": "llama-3.1-8b", "safetensors_header": {"a": {"shape": [1]}}},
        {"hf_config": {"text_config": {}}, "safetensors_header": {"weight_map": {"a": "b"}}},
    ],
)  # fmt: skip
def test_a_config_that_cannot_be_read_is_a_422_naming_why(client, body) -> None:
    resp = client.post("/v1/llm/estimate", json={"task": "inference"} | body)
    assert resp.status_code == 422, resp.text
    assert resp.headers["content-type"].startswith("application/problem+json")
