"""Multi-GPU scaling (:mod:`app.costing.ownership`'s presets and Amdahl's law): the preset a
request names or the registry's default, stated in the answer's assumptions with its source.

Errors: :class:`~app.errors.InvalidRequest` (422) for a preset the model does not know.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from app.costing import ownership as own
from app.costing.sourced import Assumed, Sourced

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
