"""The shipped curated CSVs read as plain rows, and the purchase-price rule applied to them
(the newer dated of a GPU's street price and launch price), for tests whose expected values
come from the data files rather than from the service."""

from __future__ import annotations

import csv
import datetime as dt

from app.catalog.sources.files import CURATED


def rows(name: str) -> dict[str, dict[str, str]]:
    """``curated/<name>.csv`` by id."""
    with (CURATED / f"{name}.csv").open(encoding="utf-8") as f:
        return {r["id"]: r for r in csv.DictReader(f)}


def purchase_usd(row: dict[str, str], condition: str | None = None) -> float:
    """A GPU row's purchase price, USD, by the default rule: the used price of a
    card out of production (``production_ended_as_of`` set) that has one, else (or with
    ``condition`` ``new``) the newest new price: its street price when that is dated on or
    after its launch price (or it has no launch price), else its launch price."""
    if condition == "used" or (
        condition is None and row.get("production_ended_as_of") and row["price_used_usd"]
    ):
        return float(row["price_used_usd"])
    street, launch = row["price_street_usd"], row["price_new_usd"]
    if street and (
        not launch
        or dt.date.fromisoformat(row["price_street_as_of"])
        >= dt.date.fromisoformat(row["price_new_as_of"])
    ):
        return float(street)
    return float(launch)


def marketplaces() -> frozenset[str]:
    """The providers ``curated/providers.csv`` marks ``marketplace`` or ``broker``: the
    comparable-offer rule leaves their offers out of a default unless named."""
    with (CURATED / "providers.csv").open(encoding="utf-8") as f:
        return frozenset(r["provider"] for r in csv.DictReader(f) if r["kind"] != "cloud")
