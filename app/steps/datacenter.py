"""A rented datacenter GPU's power beyond its board: its share of the server (CPUs, memory,
fans, NICs, switches and power conversion), from the published maximum power of NVIDIA's
8-GPU servers of its architecture (DGX-1, DGX A100, DGX H100, DGX B200):
``(system max - GPUs x TDP) / (GPUs x TDP)`` of the GPU's own TDP. A nameplate maximum, so an
upper bound; architectures without a DGX take the median ratio, stated."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.catalog.sources.servers import load_server_power
from app.catalog.view import CatalogView
from app.costing.sourced import Assumed, Cited, Note, Sourced

if TYPE_CHECKING:
    from app.models import Gpu


DATACENTER_FORM_FACTORS = frozenset({"datacenter_sxm", "datacenter_pcie"})


def is_datacenter(gpu: Gpu | None) -> bool:
    """Whether ``gpu`` is a datacenter accelerator (SXM or PCIe datacenter form factor)."""
    return gpu is not None and gpu.form_factor in DATACENTER_FORM_FACTORS


@dataclass(frozen=True)
class ServerShare:
    """The non-GPU power of a server per watt of GPU TDP (``ratio``) and what it rests on."""

    ratio: float
    basis: str
    source: str


def _shares() -> dict[str, ServerShare]:
    out = {}
    for r in load_server_power():
        gpus_w = r["gpus"] * r["gpu_tdp_w"]
        ratio = (r["system_max_power_w"] - gpus_w) / gpus_w
        basis = (
            f"{r['system']}: ({r['system_max_power_w']:g} W max - {r['gpus']} x "
            f"{r['gpu_tdp_w']:g} W) / {gpus_w:g} W = {ratio:.3g} W per W of GPU TDP"
        )
        out[r["architecture"]] = ServerShare(ratio, basis, f"{r['source']} ({r['as_of']})")
    return out


def server_share(view: CatalogView, gpu: Gpu) -> ServerShare:
    """The server share for ``gpu``'s architecture, else the median over the servers."""
    shares: dict[str, ServerShare] = view.memoized("server_shares", _shares)
    found = shares.get(gpu.architecture or "")
    if found is not None:
        return found
    ratio = statistics.median(s.ratio for s in shares.values())
    return ServerShare(
        ratio,
        f"no DGX of the {gpu.architecture} architecture: the median of "
        + ", ".join(f"{a} {s.ratio:.3g}" for a, s in sorted(shares.items())),
        "; ".join(s.source for s in shares.values()),
    )


def rented_host_power_w(
    view: CatalogView,
    gpu: Gpu,
    gpu_count: int,
) -> Sourced[float]:
    """The host power (W) of ``gpu_count`` rented datacenter ``gpu``s: their server share,
    stated in ``notes``."""
    notes: list[Note] = []
    share = server_share(view, gpu)
    host = share.ratio * (gpu.tdp_w or 0.0) * gpu_count
    notes.append(
        Assumed(
            "base_power_w",
            round(host, 1),
            f"default for rented datacenter GPUs: the server's share, {gpu_count} x "
            f"{gpu.tdp_w:g} W x {share.ratio:.3g} ({share.basis}; the nameplate maximum, an "
            "upper bound: give base_power_w for a measured figure)",
        )
    )
    notes.append(Cited("server power", share.source, None))
    return Sourced(host, tuple(notes))
