"""Published maximum power of NVIDIA's 8-GPU servers (``curated/server_power.csv``: DGX-1,
DGX A100, DGX H100, DGX B200 from NVIDIA's user guides and datasheets, each row with its
source), from which a rented datacenter GPU's share of its server is derived."""

from __future__ import annotations

from app.catalog.sources.files import CURATED, Row, read_csv, typed


def load_server_power() -> list[Row]:
    """One row per server: ``system``, ``architecture``, ``gpus``, ``gpu_tdp_w`` (W per
    GPU), ``system_max_power_w`` (W, nameplate maximum), with source and date."""
    return [
        typed(
            r,
            system=str,
            architecture=str,
            gpus=int,
            gpu_tdp_w=float,
            system_max_power_w=float,
        )
        for r in read_csv(CURATED / "server_power.csv")
    ]
