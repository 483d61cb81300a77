"""Hosted LLM API prices for a catalog model: what a provider charges per million input and
output tokens to run the same open model, read from genai-prices' bundled snapshot
(pydantic/genai-prices, MIT; its auto-updater is never started, so nothing is fetched).
Imported on first use: the snapshot is a 1.6 MB module read only when a serving answer asks
for it. The instruct variant of a model counts as the model (same weights' shape and cost)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from importlib.metadata import version

PACKAGE = "genai-prices"
# The release whose snapshot is read (PyPI: genai-prices 0.2.3, 2026-11).
SNAPSHOT_AS_OF = dt.date(2026, 11, 1)


@dataclass(frozen=True)
class HostedPrice:
    """One provider's price for a model: ``provider`` and ``model_id`` as genai-prices names
    them, ``input_usd_per_million_tokens`` and ``output_usd_per_million_tokens``."""

    provider: str
    model_id: str
    input_usd_per_million_tokens: float
    output_usd_per_million_tokens: float


def source() -> str:
    """Where the prices come from, with the package version read."""
    return (
        f"{PACKAGE} {version(PACKAGE)} bundled price snapshot (pydantic/genai-prices, MIT), "
        "providers' pricing pages as its maintainers record them"
    )


def _refs(hf_repo: str) -> tuple[str, ...]:
    """Names a hosted API may serve ``hf_repo`` under, lower-cased: the repository and its
    base name, with and without ``-Instruct``."""
    base = hf_repo.split("/")[-1]
    names = {hf_repo, base, f"{hf_repo}-Instruct", f"{base}-Instruct"}
    if base.startswith("Llama-"):  # Meta's own repositories of Llama 3: Meta-Llama-3-8B
        names |= {f"Meta-{base}", f"Meta-{base}-Instruct"}
    return tuple(sorted(n.lower() for n in names))


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, Decimal | int | float) else None


@cache
def hosted_prices(hf_repo: str) -> tuple[HostedPrice, ...]:
    """Each provider's price for the model of ``hf_repo`` (e.g. ``meta-llama/Llama-3.1-8B``),
    cheapest output first; free tiers and prices in tiers or other units are left out."""
    from genai_prices import data  # the snapshot: read on first use only

    now = dt.datetime.now(dt.UTC)
    found: dict[tuple[str, str], HostedPrice] = {}
    for provider in data.providers:
        for ref in _refs(hf_repo):
            model = provider.find_model(ref)
            if model is None:
                continue
            price = model.get_prices(now)
            inp = _number(getattr(price, "input_mtok", None))
            out = _number(getattr(price, "output_mtok", None))
            if inp is None or out is None or out <= 0:
                continue
            found[(provider.id, model.id)] = HostedPrice(provider.id, model.id, inp, out)
    return tuple(
        sorted(found.values(), key=lambda h: (h.output_usd_per_million_tokens, h.provider))
    )
