"""Memory needs: the memory a workload needs per GPU (a preset or a given figure, at a
precision) and whether each GPU holds it, with one warning per GPU that does not.

Errors: :class:`~app.errors.InvalidRequest` (422) for an unknown memory preset.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from app.costing import ownership as own
from app.costing.sourced import Assumed, Note, Sourced
from app.errors import InvalidRequest
from app.models.answers import MemoryCheck

if TYPE_CHECKING:
    from app.models import Gpu


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
