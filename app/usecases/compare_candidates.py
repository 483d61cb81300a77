"""The options a compare request ranks (:class:`Selection`) and their layout for the model
(:class:`Candidates`): built by :mod:`app.usecases.compare`, written by
:mod:`app.usecases.compare_listing`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.catalog.view import CatalogView
from app.costing import vector
from app.steps.compare_speed import LlmPlan


@dataclass(frozen=True)
class Selection:
    """The options a request ranks: indexes into the view's offers (``oi``) and builds
    (``bi``), whether the workload fits each catalog GPU (1, 0, -1 unknown; memory filters
    applied) and how many options were considered before the filters."""

    oi: np.ndarray
    bi: np.ndarray
    gpu_fits: np.ndarray
    considered: int


@dataclass(frozen=True)
class Candidates:
    """The selected options laid out for :func:`app.costing.vector.rank`, cloud offers first
    (``n_o`` of them) then desktop builds: GPU index and count, desktop or spot offer, fit,
    hours per reference hour (``time_factor``, NaN = unknown), the spot overhead factor, grid
    intensity (gCO2e/kWh; the request's where the offer has no catalog region),
    the model's arrays, the interruption model (None unless asked), warnings so far and, for
    a language-model workload, each option's job (``llm``)."""

    sel: Selection
    n_o: int
    g: np.ndarray
    count: np.ndarray
    is_desk: np.ndarray
    spot: np.ndarray
    fits: np.ndarray
    time_factor: np.ndarray
    overhead: np.ndarray
    ci: np.ndarray
    opts: vector.Options
    risk: vector.InterruptionRisk | None
    warnings: list[str]
    llm: LlmPlan | None = None

    def ident(self, view: CatalogView, j: int) -> str:
        """Id of option ``j``: the offer's, or the desktop build's."""
        if j < self.n_o:
            return view.offers.offers[int(self.sel.oi[j])].id
        return view.builds.builds[int(self.sel.bi[j - self.n_o])].id
