"""Catalog side of the whole-cost-of-owning model (:mod:`app.costing.ownership`): scaling
presets chosen by a request, depreciation curves fitted to the catalog's new and used GPU
prices, embodied-carbon factors, memory presets and dated exchange rates, each noted in the
answer's assumptions and sources."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from app.catalog.view import CatalogView
from app.costing import ownership as own
from app.costing.sourced import Assumed, Cited, Note, Sourced
from app.errors import InvalidRequest
from app.models import EmbodiedFactor, Gpu
from app.models.answers import MemoryCheck

# ------------------------------------------------------------------------------------------
# Multi-GPU scaling
# ------------------------------------------------------------------------------------------


Scaling = own.Scaling


def note_scaling(scaling: Scaling, counts: Iterable[int]) -> Sourced[None]:
    """State ``scaling`` and its speed-ups when a count above 1 was used."""
    if (stated := scaling.stated(counts)) is None:
        return Sourced(None)
    return Sourced(None, (Assumed("multi_gpu_scaling", stated, scaling.source),))


DEFAULT_SCALING = Scaling.preset(own.DEFAULT_SCALING)


class DeclaresScaling(Protocol):
    """A request that may declare how its job scales over GPUs."""

    @property
    def parallel_fraction(self) -> float | None: ...
    @property
    def scaling(self) -> str | None: ...


def resolve_scaling(req: DeclaresScaling) -> Scaling:
    """The request's ``parallel_fraction`` override, else its ``scaling`` preset, else the
    default (``tuned``)."""
    if req.parallel_fraction is not None:
        return Scaling("custom", req.parallel_fraction, "given parallel_fraction (Amdahl's law)")
    if req.scaling is not None:
        return Scaling.preset(req.scaling, "requested")
    return DEFAULT_SCALING


def declared_scaling_only(req: DeclaresScaling, reference_gpus: int) -> Scaling:
    """The request's declared scaling (``parallel_fraction`` or ``scaling``); with none,
    the default preset up to the workload's ``reference_gpus`` and no speed-up beyond: a job
    that never said it scales is not ranked onto a larger instance by an assumed speed-up
    (its extra GPUs are paid for and idle)."""
    if req.parallel_fraction is not None or req.scaling is not None:
        return resolve_scaling(req)
    d = DEFAULT_SCALING
    return Scaling(
        d.model,
        d.parallel_fraction,
        f"default: no scaling declared, so GPUs beyond the workload's {reference_gpus} add no "
        f"speed (declare `scaling` or `parallel_fraction` to rank larger instances); up to "
        f"{reference_gpus}: {d.source}",
        max_useful_gpus=reference_gpus,
    )


# ------------------------------------------------------------------------------------------
# Embodied carbon
# ------------------------------------------------------------------------------------------


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


# ------------------------------------------------------------------------------------------
# Memory needs
# ------------------------------------------------------------------------------------------


MemoryNeed = own.MemoryNeed


def check_memory(need: MemoryNeed, gpus: Iterable[Gpu | None]) -> tuple[MemoryCheck, list[str]]:
    """The result's ``memory`` field and one warning per distinct GPU of ``gpus`` (None
    entries skipped) below ``need``."""
    short: dict[str, str] = {}
    for gpu in gpus:
        if gpu is not None and gpu.id not in short and (w := need.short_of(gpu.id, gpu.memory_gb)):
            short[gpu.id] = w
    check = MemoryCheck(
        preset=need.preset.id,
        precision=need.precision,
        required_gb=round(need.required_gb, 4),
        gpus_below=list(short),
    )
    return check, list(short.values())


def memory_need(
    preset_id: str | None,
    precision: str | None,
) -> Sourced[MemoryNeed | None]:
    """The need of preset ``preset_id`` at ``precision`` (default fp32), or None without a
    preset. Raises :class:`InvalidRequest` (422) for an unknown preset."""
    if preset_id is None:
        return Sourced(None)
    notes: list[Note] = []
    preset = own.MEMORY_PRESETS.get(preset_id)
    if preset is None:
        raise InvalidRequest(
            f"unknown memory preset '{preset_id}'; one of {', '.join(own.MEMORY_PRESETS)}"
        )
    precision = precision or "fp32"
    need = MemoryNeed(preset, precision, own.required_memory_gb(preset.min_memory_gb, precision))
    source = preset.source + (
        f"; x 8/12 at 16-bit, {own.FP16_SOURCE}" if precision == "fp16" else ""
    )
    notes.append(Assumed("memory_need_gb", round(need.required_gb, 4), source))
    return Sourced(need, tuple(notes))


# ------------------------------------------------------------------------------------------
# Currency
# ------------------------------------------------------------------------------------------
