"""One module per use case: each turns a request into explicit inputs over the catalog view
(every default decided and stated in one place), computes with the pure model
(:mod:`app.costing`) and shapes the answer with its assumptions and sources.

The five calculations are named here too (``usecases.compute_break_even``); each is imported
on first use, so a command that answers one question imports one use case.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.usecases.break_even import compute_break_even
    from app.usecases.carbon import compute_carbon
    from app.usecases.electricity import compute_electricity
    from app.usecases.owned_rates import compute_owned_rates
    from app.usecases.run_cost import compute_run_cost

_MODULES = {
    "compute_break_even": "break_even",
    "compute_carbon": "carbon",
    "compute_electricity": "electricity",
    "compute_owned_rates": "owned_rates",
    "compute_run_cost": "run_cost",
}

__all__ = [
    "compute_break_even",
    "compute_carbon",
    "compute_electricity",
    "compute_owned_rates",
    "compute_run_cost",
]


def __getattr__(name: str) -> Any:
    """A use case's ``compute_*``, imported from its module on first use."""
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'app.usecases' has no attribute {name!r}")
    return getattr(import_module(f"app.usecases.{module}"), name)
