"""GPUs: specs and TDPs from gpu-info-api and ML CO2 Impact, launch, used and street prices
from the seeds and ``curated/gpus.csv``."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from typing import Any

from app.catalog.sources.files import (
    CURATED,
    SOURCES,
    CatalogDataError,
    Row,
    find_table,
    numbers_in,
    opt_float,
    parse_date,
    read_csv,
    seed_tables,
)

GPU_SPECS_AS_OF = dt.date(2025, 6, 16)  # gpu-info-api 'gpu-data' commit 03a6b34a (SOURCES.md)


def _first_number(text: Any) -> float | None:
    """The first number in ``text``, or None."""
    found = numbers_in(text)
    return found[0] if found else None


def _gpu_json_specs(entry: dict[str, Any]) -> dict[str, float | None]:
    def first_field(pred: Callable[[str], bool]) -> tuple[str, Any] | None:
        for key, value in entry.items():
            if pred(key) and value not in (None, "nan", "?"):
                return key, value
        return None

    specs: dict[str, float | None] = {}
    mem = first_field(lambda k: k.startswith("Memory Size"))
    specs["memory_gb"] = _first_number(mem[1]) if mem else None
    bw = first_field(lambda k: k.startswith("Memory Bandwidth"))
    specs["memory_bandwidth_gb_per_s"] = max(numbers_in(bw[1]), default=None) if bw else None
    fp = first_field(lambda k: "Single precision" in k)
    if fp:
        values = numbers_in(fp[1])
        # "base boost" pairs and ranges: the boost (largest) figure; GFLOPS -> TFLOPS.
        top = max(values, default=None)
        specs["fp32_tflops"] = None if top is None else (top / 1000 if "GFLOPS" in fp[0] else top)
    else:
        specs["fp32_tflops"] = None
    tdp = first_field(lambda k: k.startswith("TDP"))
    specs["tdp_w"] = max(numbers_in(tdp[1]), default=None) if tdp else None
    launch = str(entry.get("Launch") or "")
    specs["launch_year"] = float(launch[:4]) if launch[:4].isdigit() else None
    return specs


def load_gpus() -> list[Row]:
    """The GPU catalog: ``curated/gpus.csv`` rows with specs pulled from the source files.

    Precedence per field: the curated row's explicit override (with its ``override_source``)
    > the Paperspace 2022 table in the seed (for the 12 GPUs Paperspace benchmarked) >
    gpu.json (Wikipedia) > mlco2 gpus.csv. TDP: override > gpu.json > mlco2 > Green Algorithms.
    Raises :class:`CatalogDataError` for a GPU whose memory or TDP no source gives.
    """
    gpu_json = json.loads((SOURCES / "gpu-info-api/gpu.json").read_text(encoding="utf-8"))
    mlco2 = {r["name"]: r for r in read_csv(SOURCES / "mlco2-impact/data/gpus.csv")}
    paperspace = {r["GPU"]: r for r in find_table(seed_tables(), "GPU", "FP32 TFLOPS", "$/h")}
    tensor = tensor_specs()
    rows: list[Row] = []
    for cur in read_csv(CURATED / "gpus.csv"):
        specs, sources = _specs(cur, gpu_json, mlco2, paperspace)
        aliases = [a.strip() for a in cur["aliases"].split(";") if a.strip()]
        rows.append(
            {
                "id": cur["id"],
                "name": cur["name"],
                "aliases": aliases,
                "vendor": "AMD" if cur["architecture"].startswith("CDNA") else "NVIDIA",
                "architecture": cur["architecture"],
                "form_factor": cur["form_factor"],
                "memory_gb": specs["memory_gb"],
                "memory_bandwidth_gb_per_s": specs["memory_bandwidth_gb_per_s"],
                "fp32_tflops": specs["fp32_tflops"],
                "tdp_w": specs["tdp_w"],
                **tensor.get(cur["id"], {}),
                "launch_year": int(specs["launch_year"]) if specs["launch_year"] else None,
                "price_new_usd": opt_float(cur["price_new_usd"]),
                "price_new_as_of": parse_date(cur["price_new_as_of"]),
                "price_new_source": cur["price_new_source"] or None,
                "price_used_usd": opt_float(cur["price_used_usd"]),
                "price_used_as_of": parse_date(cur["price_used_as_of"]),
                "price_used_source": cur["price_used_source"] or None,
                "price_street_usd": opt_float(cur["price_street_usd"]),
                "price_street_as_of": parse_date(cur["price_street_as_of"]),
                "price_street_source": cur["price_street_source"] or None,
                "production_ended_as_of": parse_date(cur.get("production_ended_as_of", "")),
                "production_ended_source": cur.get("production_ended_source") or None,
                "source": "; ".join(sources),
                # gpu.json's data commit (03a6b34a, 2025-06-16), the newest spec source used.
                "as_of": GPU_SPECS_AS_OF,
                "notes": cur["notes"] or None,
            }
        )
    return rows


def _specs(
    cur: dict[str, str], gpu_json: dict[str, Any], mlco2: dict[str, Row], paperspace: dict[str, Row]
) -> tuple[dict[str, float | None], list[str]]:
    """One curated GPU's specs (memory GB, bandwidth GB/s, FP32 TFLOPS, TDP W, launch year),
    each source applied in rising precedence, and the sources used."""
    sources: list[str] = []
    specs: dict[str, float | None] = {
        "memory_gb": None,
        "memory_bandwidth_gb_per_s": None,
        "fp32_tflops": None,
        "tdp_w": None,
        "launch_year": None,
    }
    if cur["mlco2_name"]:
        m = mlco2[cur["mlco2_name"]]
        # mlco2 rows are not always aligned (the A10G row is one cell short), so a
        # cell that is not a number is treated as missing.
        specs.update(
            memory_gb=_first_number(m["memory"]) if "http" not in m["memory"] else None,
            tdp_w=_first_number(m["tdp_watts"]),
        )
        sources.append(f"mlco2/impact data/gpus.csv '{cur['mlco2_name']}'")
    if cur["gpu_json_key"]:
        found = _gpu_json_specs(gpu_json[cur["gpu_json_key"]])
        specs.update({k: v for k, v in found.items() if v is not None})
        sources.append(f"gpu-info-api gpu.json '{cur['gpu_json_key']}' (Wikipedia)")
    if cur["paperspace_name"]:
        p = paperspace[cur["paperspace_name"]]
        specs.update(
            memory_gb=float(p["mem GB"]),
            fp32_tflops=float(p["FP32 TFLOPS"]),
            memory_bandwidth_gb_per_s=float(p["mem BW GB/s"]),
        )
        sources.append("seed 004 Paperspace table (memory, FP32, bandwidth)")
    overrides = {
        k: opt_float(cur[k])
        for k in ("memory_gb", "memory_bandwidth_gb_per_s", "fp32_tflops", "tdp_w")
    }
    if any(v is not None for v in overrides.values()):
        specs.update({k: v for k, v in overrides.items() if v is not None})
        sources.append(cur["override_source"])
    missing = [k for k in ("memory_gb", "tdp_w") if specs.get(k) is None]
    if missing:
        raise CatalogDataError(f"GPU {cur['id']}: no source gives {missing}")
    return specs, sources


def tensor_specs() -> dict[str, Row]:
    """Each GPU's dense tensor throughput from ``curated/gpu_tensor_specs.csv`` (vendor
    whitepapers and datasheets, or derived from tensor cores x rate per clock x boost clock
    where the vendor prints no per-card figure; each row names its source and date, and
    ``gpu_tensor_specs.md`` the conventions): ``{gpu id: columns}``; blank cells are None."""
    out: dict[str, Row] = {}
    for r in read_csv(CURATED / "gpu_tensor_specs.csv"):
        out[r["id"]] = {
            "fp16_tensor_tflops": opt_float(r["fp16_tensor_fp32acc_tflops_dense"]),
            "fp16_acc16_tensor_tflops": opt_float(r["fp16_tensor_tflops_dense"]),
            "bf16_tensor_tflops": opt_float(r["bf16_tensor_tflops_dense"]),
            "fp8_tensor_tflops": opt_float(r["fp8_tensor_tflops_dense"]),
            "int8_tensor_tops": opt_float(r["int8_tensor_tops_dense"]),
            "tensor_source": f"{r['source_title']} ({r['source_url']}; dated {r['source_date']})",
            "tensor_as_of": _first_date(r["source_date"]),
        }
    return out


_DATE = re.compile(r"(\d{4})(?:-(0[1-9]|1[0-2])(?!\d))?(?:-(\d{2})(?!\d))?")


def _first_date(text: str) -> dt.date | None:
    """The first date in a source's date note (``2021-01 (whitepaper v2.0)`` -> 2021-01-01;
    a bare year is its 1 January); None when it names none."""
    m = _DATE.search(text)
    if m is None:
        return None
    return dt.date(int(m[1]), int(m[2] or 1), int(m[3] or 1))
