"""Names in SkyPilot's catalogs and ours: the accelerator names of its cloud catalogs mapped
to our GPU ids (:func:`gpu_for`), and the accelerator name its Kubernetes support gives a
node's GPU (:func:`kubernetes_accelerator_name`, the keys of OpenCost-style rate files)."""

from __future__ import annotations

import re

# Accelerator names in the SkyPilot catalogs -> our GPU ids. Instance-type hints come first
# where one name covers two parts (Lambda's 'A100' is PCIe or SXM4 by instance type).
ACCELERATOR_GPU = {
    "T4": "tesla-t4",
    "A10G": "a10g",
    "A10": "a10",
    "L4": "l4",
    "L40S": "l40s",
    "L40": "l40",
    "V100": "v100-16gb",
    "V100-32GB": "v100-32gb",
    "A100": "a100-sxm4-40gb",
    "A100-80GB": "a100-sxm4-80gb",
    "H100": "h100-sxm",
    "H200": "h200",
    "B200": "b200",
    "K80": "tesla-k80",
    "P100": "tesla-p100",
    "P4": "tesla-p4",
    "P40": "tesla-p40",
    "A6000": "rtx-a6000",
    "RTX6000": "quadro-rtx-6000",
    "A40": "a40",
    "A100-80GB-SXM": "a100-sxm4-80gb",
    "H100-SXM": "h100-sxm",
    "RTX3090": "rtx-3090",
    "RTX4090": "rtx-4090",
    "RTX4000-Ada": "rtx-4000-ada",
    "RTX6000-Ada": "rtx-6000-ada",
    "RTXA4000": "rtx-a4000",
    "RTXA4500": "rtx-a4500",
    "RTXA5000": "rtx-a5000",
    "RTXA6000": "rtx-a6000",
    "M4000": "quadro-m4000",
    "P4000": "quadro-p4000",
    "A4000": "rtx-a4000",
    "H100-NVL": "h100-nvl",
    # Names of the GPU clouds' files (app.catalog.sources.skypilot_providers), 2025-2026.
    "RTX5090": "rtx-5090",
    "RTX3080": "rtx-3080",
    "RTX3070": "rtx-3070",
    "RTX4060": "rtx-4060",
    "RTXPRO6000": "rtx-pro-6000-blackwell",
    "RTXPro6000": "rtx-pro-6000-blackwell",
    "RTX-PRO-6000": "rtx-pro-6000-blackwell",
    "RTXPRO6000S": "rtx-pro-6000-blackwell",
    "RTXPRO6000WS": "rtx-pro-6000-blackwell",
    "RTXPRO6000-WK": "rtx-pro-6000-blackwell",
    "H200-SXM": "h200",
    "RTX6000Ada": "rtx-6000-ada",
    "RTX-6000-Ada": "rtx-6000-ada",
    "RTX-A6000": "rtx-a6000",
    "RTX-A4000": "rtx-a4000",
    "A5000": "rtx-a5000",
    "Tesla-V100": "v100-16gb",
    "A30": "a30",
    "RTX4000Ada": "rtx-4000-ada",
    "A100-80G-PCIe": "a100-80gb",
    "A100-80G-PCIe-NVLink": "a100-80gb",
    "H100-80G-PCIe": "h100-pcie",
    "H100-80G-PCIe-NVLink": "h100-pcie",  # PCIe cards with NVLink bridges (80 GB)
    "H100-80G-SXM5": "h100-sxm",
    # Parts added with sourced spec rows (curated/gpus.csv; superchips count their GPUs).
    "B300": "b300",
    "GB200": "gb200",
    "GB300": "gb300",
    "GH200": "gh200",
    "MI300X": "mi300x",
    "MI355X": "mi355x",
    "A16": "a16",
    "A16_PCIE": "a16",
    "A800": "a800-80gb-pcie",
    "RTX2000-Ada": "rtx-2000-ada",
    "RTXPRO4000": "rtx-pro-4000-blackwell",
    "RTXPRO4500": "rtx-pro-4500-blackwell",
    "RTXPRO4500-SE": "rtx-pro-4500-blackwell",
}


PROVIDER_ACCELERATOR_GPU = {
    # (provider, accelerator): gpu id, where a provider's part differs from the default above.
    ("azure", "A100-80GB"): "a100-80gb",  # NC A100 v4 series: A100 80GB PCIe
    ("azure", "H100"): "h100-nvl",  # NC H100 v5 series: H100 NVL
    ("runpod", "A100-80GB"): "a100-80gb",  # RunPod lists the SXM part separately
    ("runpod", "H100"): "h100-pcie",  # RunPod lists the SXM part separately
    ("paperspace", "A100-80GB"): "a100-80gb",
}


def gpu_for(provider: str, accelerator: str, instance_type: str) -> str | None:
    """Our GPU id for a catalog row, or None when the catalog has no such GPU."""
    itype = instance_type.lower()
    if provider == "lambda":
        if "a100_80gb" in itype:
            return "a100-sxm4-80gb"
        if "a100" in itype:
            return "a100-sxm4-40gb" if "sxm" in itype else "a100-40gb"
        if "h100_pcie" in itype:
            return "h100-pcie"
    if provider == "azure" and itype.startswith("standard_nd"):
        # ND-series are NVLink (HGX) systems: ND H100 v5 HGX H100 SXM, ND A100 v4 / NDm A100
        # v4 HGX A100 SXM4 40 / 80 GB (Azure ND-series size pages); the NC series are PCIe.
        sxm = {"H100": "h100-sxm", "A100": "a100-sxm4-40gb", "A100-80GB": "a100-sxm4-80gb"}
        if accelerator in sxm:
            return sxm[accelerator]
    return PROVIDER_ACCELERATOR_GPU.get((provider, accelerator), ACCELERATOR_GPU.get(accelerator))


# SkyPilot's canonical GPU names, most specific first (sky/utils/gpu_names.py,
# CANONICAL_GPU_NAMES, skypilot-org/skypilot master, read 2026-11-24, Apache-2.0): the names
# its Kubernetes support gives a node's GPU, and so the keys of `kubernetes.pricing.accelerators`.
SKYPILOT_CANONICAL_GPU_NAMES = (
    "GB300", "GB200", "B300", "B200", "B100", "GH200", "H200", "H100-80GB", "H100-MEGA",
    "H100", "A100-80GB", "A100", "A10G", "A10", "A16", "A30", "A40", "RTX6000-Ada", "L40S",
    "L40", "L4", "A6000", "A5000", "A4000", "V100-32GB", "V100", "P100", "P40", "P4000", "P4",
    "T4g", "T4", "K80", "M60",
)  # fmt: skip


def kubernetes_accelerator_name(gpu_name: str) -> str:
    """The accelerator name SkyPilot gives a Kubernetes node with this GPU, by SkyPilot's own
    rule (``GFDLabelFormatter.get_accelerator_from_label_value``): the GPU's product label
    (``NVIDIA-`` + the name, words joined by ``-``) matched against its canonical names in
    order (an A100 with ``-80GB`` anywhere after it is ``A100-80GB``; others as whole words),
    else the label upper-cased with ``NVIDIA-`` and ``GEFORCE-`` dropped and ``RTX-`` joined
    (``GeForce RTX 4090`` -> ``RTX4090``). Our names' memory suffix on consumer cards and
    parenthesized notes are not part of NVIDIA's product name and are dropped first."""
    name = re.sub(r"\s*\(.*?\)", "", gpu_name).strip()
    if name.lower().startswith("geforce"):
        name = re.sub(r"\s+\d+\s*GB$", "", name, flags=re.IGNORECASE)
    label = "NVIDIA-" + "-".join(name.split())
    for canonical in SKYPILOT_CANONICAL_GPU_NAMES:
        if canonical == "A100-80GB":
            if re.search(r"A100.*-80GB", label):
                return canonical
        elif re.search(rf"\b{re.escape(canonical)}\b", label):
            return canonical
    return label.upper().replace("NVIDIA-", "").replace("GEFORCE-", "").replace("RTX-", "RTX")
