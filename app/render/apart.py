"""Work run in the drawing processes (:mod:`app.render.draw_pool`) rather than the worker:
fleet plans, whose largest cost 1-2.5 s of CPU and ~110 MB each (a MILP over 60 months and 8
desktops). In a drawing process a plan neither holds the worker's
interpreter lock nor leaves its memory in the worker (a plan flood takes a worker from ~140 MB
to 1.28 GB), and the processes' memory is capped and recycled (see the pool).

A drawing process reads its own copy of the catalog from the configured database, once, and
again when a request names a newer revision than it holds.

Catalog imports run here too (:func:`import_file`): parsing and comparing 60,000 rows is
~15 s of Python whose objects (tens of thousands of dicts) make the worker's garbage
collector pause the event loop for up to 1.5 s at a time (``scripts/bench_import.py
--http``).
"""

from __future__ import annotations

import datetime as dt

from app.catalog import importer
from app.catalog.live import live_catalog
from app.db import get_engine
from app.models.plan import PlanRequest, PlanResult
from app.settings import Settings
from app.store import imports
from app.store.audit import Actor
from app.usecases.plan_answer import compute_plan


def plan(revision: int, as_of: dt.date | None, req: PlanRequest, settings: Settings) -> PlanResult:
    """:func:`app.usecases.plan_answer.compute_plan` over the catalog at ``revision`` (or
    newer) with the prices of ``as_of``, in this (drawing) process."""
    catalog = live_catalog(get_engine(), 0)
    if catalog.view.revision < revision:
        catalog.refresh()
    return compute_plan(catalog.view_on(as_of), req, settings)


# How long a worker waits for an import in a drawing process, s: a 60,000-row file takes
# ~12 s on a quiet machine and ~30 s with the machine's load at 3-4 on 2 cores.
# Past it the answer is 503; the import itself goes on to its end (the catalog revision
# and `GET /v1/catalog/status` tell whether it landed).
IMPORT_TIMEOUT_S = 600.0


def import_file(
    name: str,
    data: bytes,
    provider: str | None,
    as_of: dt.date | None,
    source: str | None,
    actor: Actor | None = None,
) -> imports.ImportReport:
    """:func:`app.catalog.importer.parse` and :func:`app.store.imports.apply` of one file
    into the configured database, in this (drawing) process, logged as ``actor``'s. Raises
    :class:`app.catalog.importer.ImportError_` as the parser does."""
    parsed = importer.parse(name, data, provider=provider, as_of=as_of, source=source)
    return imports.apply(get_engine(), [parsed], actor=actor)
