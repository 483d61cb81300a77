"""SkyPilot's GPU clouds, marketplaces and brokers beyond AWS, GCP, Azure, Lambda, RunPod and
Paperspace: each provider's shipped file (a verbatim GPU-row subset of
``skypilot-org/skypilot-catalog``, see ``app/data/sources/SOURCES.upstream.md``) with the
date its prices are taken to hold, and the quirks of its rows.

No file carries its publication date and no commit date can be read here, so each ``as_of``
is a **no-earlier-than** date with its basis: the day the SkyPilot pull request that added
the provider's catalog was opened (read from the PR thread), or the announcement of the
newest GPU the file lists (the catalog's own GPU row). Every offer's ``notes`` say which.

Quirks handled (:func:`gpu_of_row`, :func:`resold`):

* **Vast.ai** (a marketplace: hosts set their prices, reliability varies): its own column
  order; ``SpotPrice`` 0.00 means no interruptible price; vCPU/RAM are the fetcher's
  placeholders; ``A100`` rows are 40 or 80 GB (read from ``GpuInfo``, whose ``SizeInMiB`` is
  the instance's total); 48 GB "modded" RTX 4090s are no stock 4090 and are skipped.
* **Shadeform** and **Prime Intellect** (brokers) resell other clouds' machines: the upstream
  cloud is the instance type's prefix; a machine of a cloud shipped directly (Verda, Hyperstack,
  Lambda, Nebius, Cudo, Paperspace, DigitalOcean), or of one the earlier broker already
  resells, is skipped, so no machine is counted twice. Shadeform's ``SizeInMiB`` holds GB.
* **H100** names cover PCIe, SXM and NVL parts: told apart by the instance type (``sxm``,
  ``hbm3``, ``pcie``, ``nvl``); a Hyperstack "PCIe-NVLink" is a PCIe card.
* Prices are per instance; a row without an on-demand price (Verda's multi-B200 rows) is
  skipped, counted.
"""

from __future__ import annotations

import datetime as dt
import re

from app.catalog.sources.skypilot_names import ACCELERATOR_GPU

GTC_2025 = dt.date(2025, 3, 18)  # RTX PRO 6000 Blackwell and B300 announced (gpus.csv rows)
PRO_6000 = (
    "no earlier than 2025-03-18: it lists the RTX PRO 6000 Blackwell, announced at NVIDIA "
    "GTC 2025 that day (the catalog's GPU row)"
)
B300 = (
    "no earlier than 2025-03-18: it lists B300 (Blackwell Ultra), announced at NVIDIA GTC "
    "2025 that day"
)


def _pr(day: str, what: str) -> tuple[dt.date, str]:
    return dt.date.fromisoformat(day), f"no earlier than {day}: {what}"


# provider: (path under catalogs/, as_of, the date's basis, commit read)
PROVIDER_FILES: dict[str, tuple[str, dt.date, str, str]] = {
    "vast": ("v8/vast/vms_gpu_subset.csv", GTC_2025, PRO_6000, "01b8cdda"),
    "shadeform": (
        "v8/shadeform/vms_gpu_subset.csv",
        *_pr(
            "2025-08-14", "the skypilot-catalog PR adding Shadeform's file (#144) was opened then"
        ),
        "8e50954d",
    ),
    "verda": (
        "v8/verda/vms_gpu_subset.csv",
        *_pr("2025-12-02", "SkyPilot's Verda (ex DataCrunch) provider PR #8160 was opened then"),
        "000c1d0b",
    ),
    "nebius": (
        "v8/nebius/vms_gpu_subset.csv",
        *_pr("2024-03-18", "it lists B200, announced at NVIDIA GTC 2024 that day"),
        "0082b043",
    ),
    "hyperstack": (
        "v8/hyperstack/vms_gpu_subset.csv",
        *_pr(
            "2025-04-15", "the skypilot-catalog PR adding Hyperstack's file (#113) was opened then"
        ),
        "fdc9d908",
    ),
    "cudo": (
        "v8/cudo/vms_gpu_subset.csv",
        *_pr("2022-03-22", "its newest GPU is the H100, announced at NVIDIA GTC 2022 that day"),
        "113567a7",
    ),
    "oci": ("v8/oci/vms_gpu_subset.csv", GTC_2025, B300, "05887511"),
    "primeintellect": (
        "v8/primeintellect/vms_gpu_subset.csv",
        *_pr(
            "2025-06-09",
            "the skypilot-catalog PR adding Prime Intellect's file (#132) was opened then",
        ),
        "d9a304ea",
    ),
    "jarvislabs": ("v8/jarvislabs/vms_gpu_subset.csv", GTC_2025, PRO_6000, "57d65781"),
    "hyperbolic": (
        "v8/hyperbolic/vms_gpu_subset.csv",
        *_pr("2025-05-07", "SkyPilot's Hyperbolic provider PR #5517 was opened then"),
        "0082b043",
    ),
    "yotta": (
        "v8/yotta/vms_gpu_subset.csv",
        *_pr("2026-01-22", "SkyPilot's Yotta provider PR #8657 was opened then"),
        "1f690489",
    ),
    "lium": (
        "v8/lium/vms_gpu_subset.csv",
        *_pr("2026-08-24", "the skypilot-catalog PR adding Lium's file (#190) was opened then"),
        "04a03aee",
    ),
    "daytona": ("v8/daytona/vms_gpu_subset.csv", GTC_2025, B300, "0eb5da57"),
    "do": (
        "v6/do/vms_gpu_subset.csv",
        *_pr(
            "2024-09-02", "the skypilot-catalog PR adding DigitalOcean's file (#80) was opened then"
        ),
        "1fbe7331",
    ),
}

# Brokers: the upstream cloud named by an instance type's prefix, and the upstreams skipped
# because their machines are already counted (shipped directly, or resold by an earlier broker).
_DIRECT = {
    "verda",
    "datacrunch",
    "hyperstack",
    "lambdalabs",
    "nebius",
    "cudo",
    "paperspace",
    "digitalocean",
}
BROKER_SKIPS: dict[str, frozenset[str]] = {
    "shadeform": frozenset(_DIRECT),
    "primeintellect": frozenset(_DIRECT | {"crusoecloud", "latitude"}),
}

# Names these files spell as no other (the rest are SkyPilot's common names, ACCELERATOR_GPU):
# one name covering parts we tell apart is skipped (None).
NOT_ONE_GPU = {
    "RTX3060": "3060 and 3060 Ti (8 or 12 GB) under one name",
    "RTX4070": "Vast's 'RTX4070' rows are RTX 4070 Ti Super cards",
}

_MIB = re.compile(r"['\"]TotalGpuMemoryInMiB['\"]\s*:\s*(\d+)", re.IGNORECASE)


def gpu_memory_gib(provider: str, row: dict[str, str]) -> float | None:
    """Memory per GPU of a row, GiB, from its ``GpuInfo`` (Shadeform and RunPod write GB where
    the field says MiB); None when the row does not say."""
    found = _MIB.search(row.get("GpuInfo") or "")
    count = float(row.get("AcceleratorCount") or 0)
    if found is None or count <= 0:
        return None
    total = float(found.group(1))
    if provider in ("shadeform", "runpod"):
        return total / count
    return total / count / 1024


def _h100(itype: str, default: str) -> str:
    if "pcie" in itype:
        return "h100-pcie"
    if "nvl" in itype:
        return "h100-nvl"
    if "sxm" in itype or "hbm3" in itype:
        return "h100-sxm"
    return default


def gpu_of_row(
    provider: str, accelerator: str, row: dict[str, str]
) -> tuple[str | None, str | None]:
    """Our GPU id for a row of one of these files and, when it is skipped on purpose, why."""
    itype = row.get("InstanceType", "").lower()
    if accelerator in ("H100", "H100-SXM"):
        return _h100(itype, "h100-sxm"), None
    if accelerator in ("A100", "A100-80GB"):
        memory = gpu_memory_gib(provider, row)
        big = accelerator == "A100-80GB" or (memory is not None and memory > 60)
        if not big:
            return ("a100-40gb" if "pcie" in itype else "a100-sxm4-40gb"), None
        return ("a100-80gb" if "pcie" in itype else "a100-sxm4-80gb"), None
    if accelerator == "RTX4090":
        memory = gpu_memory_gib(provider, row)
        if memory is not None and memory > 30:
            return None, f"{provider}: a 48 GB 'modded' RTX 4090 (no stock card)"
    if accelerator in NOT_ONE_GPU:
        return None, f"{provider}: {NOT_ONE_GPU[accelerator]}"
    return ACCELERATOR_GPU.get(accelerator), None


def upstream(provider: str, instance_type: str) -> str | None:
    """The cloud a broker's row resells (its instance type's prefix), None for a non-broker."""
    if provider not in BROKER_SKIPS:
        return None
    sep = "__" if provider == "primeintellect" else "_"
    return instance_type.split(sep, 1)[0].lower()


def resold(provider: str, instance_type: str) -> str | None:
    """Why a broker's row is skipped (its machine is counted elsewhere), else None."""
    up = upstream(provider, instance_type)
    if up is not None and up in BROKER_SKIPS[provider]:
        return f"{provider}: resells {up}, counted directly or through an earlier broker"
    return None
