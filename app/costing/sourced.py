"""How a value the model uses was chosen: :class:`Default` (a registry number with its
source and date), :class:`CatalogDefault` (a default that is an editable catalog row), and
:class:`Sourced` (a value a resolution step chose, with the notes that say how: the
assumptions it made, the sources it cited, the catalog prices it used with their dates, and
its caveats).

Pure data: no imports of ours, usable by the model and by every layer above it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeVar

T_co = TypeVar("T_co", covariant=True)


@dataclass(frozen=True)
class Default:
    """A default number (or choice) with its provenance.

    Attributes:
        key: the registry name, e.g. ``electricity_price_usd_per_kwh``.
        value: the default itself, in ``unit``.
        unit: e.g. ``USD/kWh``, ``W``, ``years``; ``""`` for a choice (a preset id).
        basis: why this value, in a few words (what it stands for).
        source: the publication it comes from ("gpucost's rule" where none exists).
        as_of: the source's date.
        low, high: a plausible range the caller may want to try (None: none published).
        range_source: where the range comes from (set whenever ``low`` and ``high`` are).
    """

    key: str
    value: float | str
    unit: str
    basis: str
    source: str
    as_of: dt.date
    low: float | None = None
    high: float | None = None
    range_source: str | None = None

    @property
    def number(self) -> float:
        """The value as a float (a :class:`TypeError` for a choice)."""
        if isinstance(self.value, str):
            raise TypeError(f"default {self.key} is a choice, not a number")
        return float(self.value)

    def shown(self) -> str:
        """The value with its unit, e.g. ``0.12 USD/kWh``."""
        value = f"{self.value:g}" if isinstance(self.value, float | int) else f"`{self.value}`"
        return f"{value} {self.unit}".strip()

    def source_text(self) -> str:
        """What an answer's assumption says of it: ``default: <basis> (<source>, <as_of>)``."""
        return f"default: {self.basis} ({self.source}, as of {self.as_of.isoformat()})"

    def describe(self) -> str:
        """The schema's sentence for a field this default fills."""
        text = f"Default {self.shown()}: {self.basis} ({self.source}, as of {self.as_of})"
        if self.low is not None and self.high is not None:
            text += f"; range {self.low:g}-{self.high:g} {self.unit}".rstrip()
            text += f" ({self.range_source})"
        return text + "."


@dataclass(frozen=True)
class CatalogDefault:
    """A default whose number is a catalog row (``reference_value`` ``row_id``, or a
    region's or provider's column): an admin may change it, so the schema cites the row
    rather than a value. ``shipped`` says where the seeded value comes from."""

    key: str
    row: str
    unit: str
    basis: str
    shipped: str

    def describe(self) -> str:
        """The schema's sentence for a field this default fills."""
        return (
            f"Default: the catalog's {self.row} ({self.unit}; {self.basis}), an editable "
            f"catalog value; as shipped: {self.shipped}. The answer's assumptions state the "
            "value used and its source."
        )


class Assumed(NamedTuple):
    """A value chosen for the caller: its name, the value, and why (given, a default with its
    source, a catalog row with its source and date, or a named formula)."""

    name: str
    value: Any
    source: str


class Cited(NamedTuple):
    """A source an answer rests on: what it gave, where from, and its date (None: undated)."""

    what: str
    source: str
    as_of: dt.date | None


class Priced(NamedTuple):
    """A catalog price used, with its date (for the answer's price age; None: undated, left
    out of it)."""

    what: str
    as_of: dt.date | None


class Caveat(NamedTuple):
    """A warning the answer must carry."""

    text: str


Note = Assumed | Cited | Priced | Caveat


class Sourced(NamedTuple, Generic[T_co]):
    """A value a resolution step chose and the notes that say how, in the order met."""

    value: T_co
    notes: tuple[Note, ...] = ()

    def assumed(self, name: str) -> Assumed | None:
        """The note on ``name``'s value, if the step made one."""
        return next((n for n in self.notes if isinstance(n, Assumed) and n.name == name), None)
