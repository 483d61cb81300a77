"""Owned-GPU rates (:class:`OwnedRatesResult`) written in the configuration formats of the
tools that otherwise price owned hardware at $0.

* **SkyPilot**: the ``kubernetes: pricing: accelerators:`` block of ``~/.sky/config.yaml``,
  one all-in price per accelerator-hour keyed by the name SkyPilot gives the GPU (SkyPilot
  docs, "Configuring Pricing", docs.skypilot.co/en/latest/reference/kubernetes/
  kubernetes-pricing.html, read 2026-11-24: "accelerator instances use only the
  per-accelerator rate (an all-in price that includes cpu and memory)").
* **OpenCost**: its custom-pricing ``default.json`` (opencost/opencost ``configs/default.json``
  and ``pkg/cloud/provider/providerconfig.go`` ``DefaultPricing``, read 2026-11-24, Apache-2.0):
  string fields, ``GPU`` "per GPU hour", ``CPU`` per vCPU-hour, ``RAM`` per GB-hour. OpenCost
  has one GPU price for a custom cluster, so several GPU types are pooled into one rate
  weighted by the GPU-hours each serves.

Both tools price in USD: the figures are the USD rates whatever the request's currency.
"""

from __future__ import annotations

import math
from collections import defaultdict

import orjson

from app.models.owned_rates import OpenCostPricing, OwnedGpuRate, OwnedRatesResult

YAML_MEDIA_TYPE = "application/yaml"


def _pool(rates: list[OwnedGpuRate]) -> float:
    """The GPU-hour weighted cost per GPU-hour of ``rates``, USD."""
    hours = math.fsum(r.gpu_hours_per_year for r in rates)
    return math.fsum(r.cost_usd_per_gpu_hour * r.gpu_hours_per_year for r in rates) / hours


def skypilot_accelerators(result: OwnedRatesResult) -> dict[str, float]:
    """SkyPilot accelerator name -> USD per accelerator-hour, rounded to 4 decimals (GPU
    types SkyPilot names alike, such as the V100 16 GB and 32 GB, pooled)."""
    by_name: dict[str, list[OwnedGpuRate]] = defaultdict(list)
    for r in result.rates:
        by_name[r.accelerator_name].append(r)
    return {name: round(_pool(rs), 4) for name, rs in sorted(by_name.items())}


def _yaml_key(name: str) -> str:
    """A mapping key as YAML reads it back as the same string (quoted unless plain-safe)."""
    plain = name and name[0].isalnum() and all(c.isalnum() or c in "-_." for c in name)
    return (
        name
        if plain and name.lower() not in {"true", "false", "null", "yes", "no"}
        else ('"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"')
    )


def skypilot_yaml(result: OwnedRatesResult) -> str:
    """The ``kubernetes: pricing: accelerators:`` block, with a comment per GPU saying what the
    price holds, ready to merge into ``~/.sky/config.yaml`` (or a context's
    ``context_configs.<name>.pricing``)."""
    day = result.prices.prices_as_of.isoformat()
    lines = [
        "# gpucost owned-GPU rates, USD per accelerator-hour (all-in: purchase net of resale",
        f"# over the busy hours served, electricity, overhead), prices of {day}.",
        "# Merge into ~/.sky/config.yaml: sky launch, sky status and sky gpus list then use them.",
        "kubernetes:",
        "  pricing:",
        "    accelerators:",
    ]
    members: dict[str, list[str]] = defaultdict(list)
    for r in result.rates:
        members[r.accelerator_name].append(f"{r.gpus} x {r.gpu_id or r.accelerator_name}")
    for name, price in skypilot_accelerators(result).items():
        lines.append(f"      {_yaml_key(name)}: {price:.4f}  # {', '.join(members[name])}")
    return "\n".join(lines) + "\n"


def opencost_default_json(result: OwnedRatesResult) -> bytes:
    """OpenCost's custom-pricing ``default.json``: ``GPU`` (and ``spotGPU``) the pooled rate,
    USD per GPU-hour, as OpenCost's string fields. The rate is all-in (the whole machine per
    GPU-hour), so ``CPU``, ``RAM`` and ``storage`` are "0": a cluster whose CPU-only nodes
    should be priced keeps its own values there."""
    gpu = f"{_pool(result.rates):.6f}"
    names = ", ".join(f"{r.gpu_id or r.accelerator_name} ${r.cost_usd_per_gpu_hour:.4f}"
                      for r in result.rates)  # fmt: skip
    body = OpenCostPricing(
        provider="custom",
        description=f"gpucost owned-GPU rate, USD per GPU-hour, all-in (purchase net of "
        f"resale, electricity, overhead), prices of {result.prices.prices_as_of}; "
        f"GPU-hour weighted over: {names}",
        CPU="0",
        spotCPU="0",
        RAM="0",
        spotRAM="0",
        GPU=gpu,
        spotGPU=gpu,
        storage="0",
    )
    return orjson.dumps(body.model_dump(), option=orjson.OPT_INDENT_2) + b"\n"
