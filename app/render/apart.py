"""Work run in the drawing processes (:mod:`app.render.draw_pool`) rather than the worker:
fleet plans, whose largest cost 1-2.5 s of CPU and ~110 MB each (a MILP over 60 months and 8
desktops, gpucost issue 36). In a drawing process a plan neither holds the worker's
interpreter lock nor leaves its memory in the worker (a plan flood took a worker from ~140 MB
to 1.28 GB), and the processes' memory is capped and recycled (see the pool).

A drawing process reads its own copy of the catalog from the configured database, once, and
again when a request names a newer revision than it holds.
"""

from __future__ import annotations

import datetime as dt

from app.catalog.live import live_catalog
from app.db import get_engine
from app.models.plan import PlanRequest, PlanResult
from app.settings import Settings
from app.usecases.plan_answer import compute_plan


def plan(revision: int, as_of: dt.date | None, req: PlanRequest, settings: Settings) -> PlanResult:
    """:func:`app.usecases.plan_answer.compute_plan` over the catalog at ``revision`` (or
    newer) with the prices of ``as_of``, in this (drawing) process."""
    catalog = live_catalog(get_engine(), 0)
    if catalog.view.revision < revision:
        catalog.refresh()
    return compute_plan(catalog.view_on(as_of), req, settings)
