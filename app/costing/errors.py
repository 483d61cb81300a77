"""Domain errors of the cost model. They carry no HTTP status: the web layer maps them."""

from __future__ import annotations


class CostingError(Exception):
    """Base class of the cost model's errors.

    Attributes:
        message: human-readable explanation.
        field: the input field at fault, when there is one.
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class InvalidInput(CostingError):
    """An input has no meaningful answer (zero utilization, negative price, ...)."""
