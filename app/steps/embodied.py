"""Embodied carbon: the catalog's manufacturing-emission factors for a desktop, a server and
a GPU, and a cloud instance's share of them, each cited in the answer's sources.

Errors: :class:`~app.errors.CatalogGap` (404) when a factor is missing from the catalog.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.catalog.view import CatalogView
from app.costing import ownership as own
from app.costing.sourced import Assumed, Cited, Note, Sourced

if TYPE_CHECKING:
    from app.models import EmbodiedFactor, Gpu


@dataclass(frozen=True)
class _Factor:
    """A catalog embodied-carbon row as the model takes it, and how an answer cites it."""

    factor: own.EmbodiedFactor
    what: str
    row: EmbodiedFactor


def _factor(view: CatalogView, part: str) -> _Factor:
    """The factor of ``part`` in ``view``, converted once per view (the view never changes)."""

    def build() -> dict[str, _Factor]:
        return {
            p: _Factor(
                own.EmbodiedFactor(r.co2e_kg, r.relative_sd, r.source),
                f"embodied carbon of a {p}: {r.co2e_kg:g} kg CO2e +/- {r.relative_sd:.1%} (1 sd)",
                r,
            )
            for p, r in view.embodied.items()
        }

    view.embodied_factor(part)  # the catalog gap when the catalog has no factor for it
    factors: dict[str, _Factor] = view.memoized("usecases.embodied_factors", build)
    return factors[part]


def cite_embodied(view: CatalogView, *parts: str) -> Sourced[None]:
    """Cite the embodied-carbon factors used."""
    notes: list[Note] = []
    for part in parts:
        f = _factor(view, part)
        notes.append(Cited(f.what, f.row.source, f.row.as_of))
    return Sourced(None, tuple(notes))


def gpu_part(gpu: Gpu | None) -> str:
    """The embodied-carbon part of one ``gpu``: ``gpu-datacenter`` for a datacenter
    accelerator (NVIDIA's HGX H100 carbon footprint), else ``gpu`` (a graphics card)."""
    datacenter = gpu is not None and gpu.form_factor in ("datacenter_sxm", "datacenter_pcie")
    return "gpu-datacenter" if datacenter else "gpu"


def desktop_embodied(
    view: CatalogView, gpu_count: int, gpu: Gpu | None = None
) -> Sourced[own.Embodied]:
    """Manufacturing emissions of a desktop with ``gpu_count`` GPUs: the desktop (barebone)
    plus ``gpu_count`` GPUs of ``gpu``'s class (:func:`gpu_part`), kg CO2e with a one-sigma
    range."""
    notes: list[Note] = []
    part = gpu_part(gpu)
    desktop, card = _factor(view, "desktop").factor, _factor(view, part).factor
    notes += cite_embodied(view, "desktop", part).notes
    return Sourced(own.embodied_total([(desktop, 1), (card, gpu_count)]), tuple(notes))


def cloud_embodied(
    view: CatalogView, gpu_count: int, gpu: Gpu | None = None
) -> Sourced[tuple[own.Embodied, float]]:
    """Manufacturing emissions of a cloud instance, ``gpu_count`` GPUs and its host, and the
    lifetime they are spread over, years. A datacenter accelerator's host is its share of an
    8-GPU server (``server``, ``gpu_count / 8`` of one); another GPU's host takes the
    catalog's machine-without-GPUs factor, a lower bound for a server."""
    notes: list[Note] = []
    part = gpu_part(gpu)
    card = _factor(view, part)
    row = card.row
    if part == "gpu-datacenter":
        host, host_units = _factor(view, "server"), gpu_count / 8
        host_text = f"{gpu_count}/8 of an 8-GPU server without its GPUs"
    else:
        host, host_units = _factor(view, "desktop"), 1
        host_text = "1 host, counted as the catalog's machine without GPUs (a lower bound)"
    notes += cite_embodied(view, part).notes
    notes += cite_embodied(view, "server" if part == "gpu-datacenter" else "desktop").notes
    notes.append(
        Assumed(
            "cloud.embodied",
            f"{gpu_count} GPU(s) ({part}) + {host_text}, spread over every hour of a "
            f"{row.lifetime_years:g}-year life",
            "the same boundary as the desktop's (machine + GPUs); " + row.source,
        )
    )
    total = own.embodied_total([(host.factor, host_units), (card.factor, gpu_count)])
    return Sourced((total, row.lifetime_years), tuple(notes))
