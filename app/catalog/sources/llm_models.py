"""The language-model catalog: ``curated/llm_models.csv`` (each model's published
``config.json`` shape and parameter totals, with the repository copy and paper each row was
read from; ``llm_models.md`` has the notes). Read once per process; the catalog view carries
it (:attr:`app.catalog.view.CatalogView.llm_models`). Read-only: no table, no admin writes."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cache

from app.catalog.sources.files import CURATED, CatalogDataError, read_csv
from app.costing.llm import Architecture

_INTS = (
    "layers",
    "hidden_size",
    "intermediate_size",
    "heads",
    "kv_heads",
    "head_dim",
    "vocab_size",
    "context_length",
    "experts",
    "experts_per_token",
    "shared_experts",
    "moe_intermediate_size",
    "dense_layers",
    "q_lora_rank",
    "kv_lora_rank",
    "qk_nope_head_dim",
    "qk_rope_head_dim",
    "v_head_dim",
    "sliding_window",
    "sliding_window_layers",
)


@dataclass(frozen=True)
class LlmModel:
    """One catalog model: ``id``, ``name``, ``aliases`` (names as people type them),
    ``family``, ``hf_repo`` (the Hugging Face repository), ``params`` and ``active_params``
    (published totals, parameters; equal for dense models), ``arch`` (its config.json shape),
    ``config_source`` (where the shape was read), ``params_source`` (where the totals are
    published) and ``as_of`` (the model's release date)."""

    id: str
    name: str
    aliases: tuple[str, ...]
    family: str
    hf_repo: str
    params: float
    active_params: float
    arch: Architecture
    config_source: str
    params_source: str
    as_of: dt.date

    @property
    def moe(self) -> bool:
        return self.arch.experts > 0


def _row(r: dict[str, str]) -> LlmModel:
    try:
        arch = Architecture(
            tied_embeddings=r["tied_embeddings"] == "true", **{k: int(r[k]) for k in _INTS}
        )
        return LlmModel(
            id=r["id"],
            name=r["name"],
            aliases=tuple(a for a in r["aliases"].split("|") if a),
            family=r["family"],
            hf_repo=r["hf_repo"],
            params=float(r["params_b"]) * 1e9,
            active_params=float(r["active_params_b"]) * 1e9,
            arch=arch,
            config_source=r["config_source"],
            params_source=r["params_source"],
            as_of=dt.date.fromisoformat(r["as_of"]),
        )
    except (KeyError, ValueError) as exc:
        raise CatalogDataError(f"llm_models.csv row {r.get('id')!r}: {exc}") from exc


@cache
def llm_models() -> dict[str, LlmModel]:
    """The shipped models by id, in file order."""
    return {m.id: m for m in map(_row, read_csv(CURATED / "llm_models.csv"))}
