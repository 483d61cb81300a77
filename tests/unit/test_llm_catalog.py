"""Audit of the language-model catalog (``app/data/curated/llm_models.csv``): each model's
parameter count, derived from its config.json shape, against the total its paper or model card
publishes; the catalog covers the families the issue names; every row names its sources."""

from __future__ import annotations

import pytest

from app.catalog.sources.llm_models import llm_models

MODELS = llm_models()


def test_the_catalog_has_at_least_fifteen_models_of_the_named_families() -> None:
    assert len(MODELS) >= 15
    families = {m.family for m in MODELS.values()}
    assert {
        "llama-2",
        "llama-3.1",
        "mistral",
        "mixtral",
        "qwen-2.5",
        "gemma-2",
        "phi-3",
    } <= families
    assert any(m.moe for m in MODELS.values() if m.family.startswith("deepseek"))


@pytest.mark.parametrize("model_id", sorted(MODELS))
def test_the_derived_parameter_count_matches_the_published_total(model_id: str) -> None:
    m = MODELS[model_id]
    assert m.arch.total_params() == pytest.approx(m.params, rel=0.05)


@pytest.mark.parametrize("model_id", sorted(i for i, m in MODELS.items() if m.moe))
def test_a_mixture_of_experts_counts_its_active_parameters_as_published(model_id: str) -> None:
    m = MODELS[model_id]
    assert m.active_params < m.params / 3  # a token uses a small share of the experts
    assert m.arch.active_params() == pytest.approx(m.active_params, rel=0.05)


def test_gemma_2_counts_to_the_papers_exact_embedding_and_non_embedding_sum() -> None:
    # Gemma 2 paper (arXiv 2408.00118) Table 2: 917,504,000 + 8,324,201,984 parameters.
    assert MODELS["gemma-2-9b"].arch.total_params() == pytest.approx(
        917_504_000 + 8_324_201_984, rel=0.001
    )


def test_mixtral_counts_to_the_announced_46_7b_and_12_9b() -> None:
    # Mistral AI, 'Mixtral of experts' (2023-12-11): 46.7B total, 12.9B per token.
    arch = MODELS["mixtral-8x7b"].arch
    assert arch.total_params() / 1e9 == pytest.approx(46.7, abs=0.1)
    assert arch.active_params() / 1e9 == pytest.approx(12.9, abs=0.2)


@pytest.mark.parametrize("model_id", sorted(MODELS))
def test_every_row_names_where_its_shape_and_its_total_come_from(model_id: str) -> None:
    m = MODELS[model_id]
    assert m.config_source and m.params_source and m.hf_repo
    assert m.arch.hidden_size % m.arch.heads == 0 or m.arch.head_dim  # a real shape
    assert m.arch.heads % max(m.arch.kv_heads, 1) == 0
