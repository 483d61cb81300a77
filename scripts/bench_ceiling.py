"""The bench's ceiling for ``POST /v1/break-even`` (``scripts.bench_ceiling:app``): the product
as it runs, except that the break-even use case answers each distinct request from a cache of
its first answer. Everything else a request pays stays: the edge (request id, body checks,
rate limits, security headers, metrics, the access line), FastAPI's routing, the body's parsing
and validation, and serializing the answer (~7.5 kB).

It answers "how fast could break-even be if the model cost nothing": the most any speed-up of
the model (resolution and costing) could reach. It is a measuring instrument for
``scripts/bench.py``, never served: a product that cached answers would make a bench that
repeats one body measure the cache.
"""

from __future__ import annotations

from app import usecases
from app.catalog.view import CatalogView
from app.main import app
from app.models.break_even import BreakEvenRequest, BreakEvenResult
from app.settings import Settings

__all__ = ["app"]

_model = usecases.compute_break_even
_answers: dict[str, BreakEvenResult] = {}


def _cached(view: CatalogView, req: BreakEvenRequest, settings: Settings) -> BreakEvenResult:
    """The first answer of the model to this request body (its JSON), every time."""
    key = req.model_dump_json()
    if key not in _answers:
        _answers[key] = _model(view, req, settings)
    return _answers[key]


usecases.compute_break_even = _cached
