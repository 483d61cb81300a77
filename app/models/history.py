"""Price history, API keys and saved scenarios: the tables behind catalog writes.

Prices are never overwritten. Every price the catalog has held is a :class:`PricePoint`
(``valid_from`` is the day it took effect); the catalog tables keep the latest one as their
current value, and a read for a past day uses the point in force that day.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any, NamedTuple

from sqlalchemy import JSON, Column, Index
from sqlmodel import Field, SQLModel


class PricedColumns(NamedTuple):
    """Where a priced field's date and source are kept in its table."""

    date: str
    source: str


# The priced fields of each catalog table, with the columns holding each price's date and
# source. Offers: USD/h and USD/month; GPUs: USD (launch, used and street); barebones: USD; regions:
# USD/kWh.
PRICE_FIELDS: dict[str, dict[str, PricedColumns]] = {
    "cloud_offer": {
        "price_usd_per_hour": PricedColumns("as_of", "source"),
        "monthly_fee_usd": PricedColumns("as_of", "source"),
    },
    "gpu": {
        "price_new_usd": PricedColumns("price_new_as_of", "price_new_source"),
        "price_used_usd": PricedColumns("price_used_as_of", "price_used_source"),
        "price_street_usd": PricedColumns("price_street_as_of", "price_street_source"),
    },
    "barebone": {"price_usd": PricedColumns("as_of", "source")},
    "region": {
        "electricity_price_usd_per_kwh": PricedColumns("electricity_as_of", "electricity_source"),
        "electricity_non_household_usd_per_kwh": PricedColumns(
            "electricity_non_household_as_of", "electricity_non_household_source"
        ),
    },
}


class PricePoint(SQLModel, table=True):
    """One dated price of one catalog item (append-only)."""

    __tablename__ = "price_point"
    __table_args__ = (
        Index("ix_price_point_item", "item_kind", "item_id", "field", "valid_from"),
        Index("ix_price_point_valid_from", "valid_from"),
    )

    id: int | None = Field(default=None, primary_key=True, description="Row id (insert order).")
    item_kind: str = Field(max_length=32, description="Table: `cloud_offer`, `gpu`, ...")
    item_id: str = Field(max_length=160, description="Id of the priced row.")
    field: str = Field(max_length=64, description="Priced column, e.g. `price_usd_per_hour`.")
    valid_from: dt.date = Field(description="Day the price took effect.")
    value: Decimal | None = Field(
        default=None,
        max_digits=18,
        decimal_places=6,
        description="The price in the column's unit; null = no price from that day.",
    )
    source: str = Field(max_length=2000, description="Where the price comes from.")
    recorded_at: dt.datetime = Field(description="When this service recorded it (UTC).")


class ApiKey(SQLModel, table=True):
    """An admin API key. Only a SHA-256 digest of the key is stored; the key itself is shown
    once, when it is created."""

    __tablename__ = "api_key"

    id: str = Field(primary_key=True, max_length=32, description="Public key id (in the key).")
    name: str = Field(max_length=200, description="Who or what holds the key.")
    secret_sha256: str = Field(max_length=64, description="Hex SHA-256 of the whole key.")
    scopes: str = Field(
        max_length=200, description="Space-separated: `read`, `write`, `scenarios`."
    )
    created_at: dt.datetime = Field(description="Creation time (UTC).")
    revoked_at: dt.datetime | None = Field(default=None, description="Revocation time (UTC).")
    expires_at: dt.datetime | None = Field(
        default=None, description="Expiry time (UTC); the key stops working then. None: never."
    )


class Scenario(SQLModel, table=True):
    """A saved request (break-even or run-cost through the API, any calculator's from the web
    pages), re-evaluated on demand."""

    __tablename__ = "scenario"

    id: str = Field(primary_key=True, max_length=32, description="Scenario id.")
    name: str = Field(max_length=200, description="Name given by its creator.")
    kind: str = Field(
        max_length=32,
        description="What the request is for: `break_even`, `run_cost`, `compare`, `plan`, "
        "`carbon` or `llm_estimate` (`app.models.scenario.ScenarioKind`).",
    )
    request: dict[str, Any] = Field(
        sa_column=Column(JSON, nullable=False), description="The request body, as stored."
    )
    created_at: dt.datetime = Field(description="Creation time (UTC).")
    owner_key_id: str | None = Field(
        default=None,
        max_length=32,
        index=True,
        description="Id of the API key that saved it (only it may list or delete it); null "
        "for scenarios saved before ownership.",
    )
    owner_user: str | None = Field(
        default=None,
        max_length=200,
        index=True,
        description="The signed-in user who saved it through the institution's proxy (single "
        "sign-on; only they may delete it); null when a key saved it.",
    )
    lab: str | None = Field(
        default=None,
        max_length=200,
        index=True,
        description="The lab it is shared with (its members list and read it); null: its "
        "owner's alone.",
    )
    owner_browser: str | None = Field(
        default=None,
        max_length=64,
        index=True,
        description="SHA-256 (hex) of the browser cookie's token that saved it from a "
        "calculator page without an API key (only that browser may delete it); null "
        "otherwise.",
    )
    page_query: str | None = Field(
        default=None,
        max_length=4000,
        description="The calculator page's form it was saved from (`page` path and query "
        "string, as `/break-even?gpu=...`); null for scenarios saved through the API.",
    )
    catalog_revision: int | None = Field(
        default=None,
        description="The catalog revision a page's answer was computed on when saved; null "
        "for scenarios saved through the API.",
    )


class SlackReplay(SQLModel, table=True):
    """A Slack request signature already answered, kept until ``expires_at`` (Unix time, s)
    so a replay of it to any worker or replica is refused (the primary key makes the first
    insert win)."""

    __tablename__ = "slack_replay"

    signature: str = Field(primary_key=True, max_length=128, description="`v0=...` signature.")
    expires_at: float = Field(index=True, description="When it may be forgotten, Unix time, s.")


class SlackThread(SQLModel, table=True):
    """The question asked in a Slack thread and its follow-ups so far (one per line), so a
    follow-up there ("@gpucost and at 50%?") changes it; kept until ``expires_at``."""

    __tablename__ = "slack_thread"

    thread_key: str = Field(
        primary_key=True, max_length=160, description="`{team}:{channel}:{thread ts}`."
    )
    turns: str = Field(
        max_length=8000, description="The question, then each follow-up, one per line."
    )
    expires_at: float = Field(index=True, description="When it may be forgotten, Unix time, s.")


def future_date_problem(day: dt.date | None, today: dt.date) -> str | None:
    """Why ``day`` cannot date a price (it is after ``today``), or None. Prices are dated
    when they take effect, so a future date would change answers before it is true."""
    if day is not None and day > today:
        return (
            f"as_of {day.isoformat()} is in the future (today is {today.isoformat()}); "
            "prices are dated when they take effect"
        )
    return None


def column_value(col: Any, value: Any) -> Any:
    """``value`` as ``col`` stores it: Decimals quantized to a Numeric column's scale, floats
    for Float columns (both have ``asdecimal``); anything else as given."""
    asdecimal = getattr(col.type, "asdecimal", None)
    if value is None or asdecimal is None:
        return value
    if asdecimal and col.type.scale is not None:
        return Decimal(str(value)).quantize(Decimal(1).scaleb(-col.type.scale))
    return float(value)
