"""One module per use case: each turns a request into explicit inputs over the catalog view
(every default decided and stated in one place), computes with the pure model
(:mod:`app.costing`) and shapes the answer with its assumptions and sources."""

from app.usecases.break_even import compute_break_even
from app.usecases.carbon import compute_carbon
from app.usecases.electricity import compute_electricity
from app.usecases.owned_rates import compute_owned_rates
from app.usecases.run_cost import compute_run_cost

__all__ = [
    "compute_break_even",
    "compute_carbon",
    "compute_electricity",
    "compute_owned_rates",
    "compute_run_cost",
]
