"""Paths of the shipped data and the small parsing helpers every source reader uses: CSV
rows, optional numbers, Markdown tables of the seed restatement, slugs and ISO dates."""

from __future__ import annotations

import csv
import datetime as dt
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parents[2] / "data"


SOURCES = DATA_DIR / "sources"


CURATED = DATA_DIR / "curated"


REFERENCE = DATA_DIR / "reference"


SEED_FACTS = REFERENCE / "seed-facts.md"
PAPERSPACE_2022_SOURCE = (
    "seed 004: Paperspace blog 'Best GPU for deep learning on Paperspace' "
    "(blog.paperspace.com/best-gpu-paperspace-2022), restated in reference/seed-facts.md"
)
PAPERSPACE_2022_AS_OF = dt.date(2022, 4, 1)  # the post is dated April 2022 (seed 004)


Row = dict[str, Any]


class CatalogDataError(ValueError):
    """A shipped data file does not have the shape this loader expects."""


def read_csv(path: Path, *, skip_lines: int = 0) -> list[dict[str, str]]:
    """Rows of a CSV file as dicts (BOM-safe); ``skip_lines`` lines before the header."""
    with path.open(newline="", encoding="utf-8-sig") as fh:
        for _ in range(skip_lines):
            next(fh)
        return [
            {k.strip(): (v or "").strip() for k, v in r.items() if k} for r in csv.DictReader(fh)
        ]


def opt_float(text: str | None) -> float | None:
    """``float(text)`` or None for a blank cell."""
    if text is None or str(text).strip() == "":
        return None
    return float(text)


_NUM = re.compile(r"\d+(?:\.\d+)?")


def numbers_in(value: Any) -> list[float]:
    """All numbers in a gpu.json cell: ``'3,469.8 3,935.2'`` -> [3469.8, 3935.2].

    Thousands separators are commas followed by three digits; ranges (``'100-125'``),
    "base boost" pairs and parenthesised sparse rates all yield their numbers in order.
    """
    if value is None:
        return []
    if isinstance(value, int | float):
        return [float(value)]
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", str(value))
    return [float(m) for m in _NUM.findall(text)]


def parse_markdown_tables(text: str) -> list[list[dict[str, str]]]:
    """Every pipe table in a Markdown text, as lists of row dicts keyed by header cell."""
    tables: list[list[dict[str, str]]] = []
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.strip().startswith("|"):
            block.append(line.strip())
            continue
        if len(block) >= 3:
            cells = [[c.strip() for c in row.strip("|").split("|")] for row in block]
            header, body = cells[0], cells[2:]
            tables.append([dict(zip(header, row, strict=False)) for row in body])
        block = []
    return tables


def find_table(tables: list[list[dict[str, str]]], *columns: str) -> list[dict[str, str]]:
    """The first table whose header has all ``columns``."""
    for table in tables:
        if table and all(c in table[0] for c in columns):
            return table
    raise CatalogDataError(f"no table with columns {columns} in {SEED_FACTS.name}")


@cache
def seed_tables() -> list[list[dict[str, str]]]:
    return parse_markdown_tables(SEED_FACTS.read_text(encoding="utf-8"))


def slug(text: str) -> str:
    """Lower-case slug: ``'p3.2xlarge'`` -> ``'p3.2xlarge'``, ``'East Coast (NY2)'`` ->
    ``'east-coast-ny2'``."""
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")


def parse_date(text: str | None) -> dt.date | None:
    return dt.date.fromisoformat(text) if text else None


def or_none(text: str | None) -> str | None:
    """The cell's text, or None for a blank cell."""
    return text or None


def typed(row: dict[str, str], **columns: Callable[[str], Any]) -> dict[str, Any]:
    """The ``columns`` of a curated CSV row, each through its converter (``float``, ``int``,
    :func:`opt_float`, :func:`or_none`, ``str``), with the row's provenance: ``source`` as
    written and ``as_of`` as a date."""
    out = {name: convert(row[name]) for name, convert in columns.items()}
    out["source"] = row["source"]
    out["as_of"] = parse_date(row["as_of"])
    return out
