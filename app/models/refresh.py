"""The last `gpucost catalog refresh` of each provider (table) and the status answer of
`GET /v1/catalog/status`."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel
from pydantic import Field as PydanticField
from sqlmodel import Field, SQLModel

RefreshOutcome = Literal["refreshed", "unchanged", "refused", "failed"]


class CatalogRefresh(SQLModel, table=True):
    """One row per provider: what its last refresh did and when it last succeeded."""

    __tablename__ = "catalog_refresh"

    provider: str = Field(primary_key=True, max_length=32, description="Provider id, e.g. `aws`.")
    attempted_at: dt.datetime = Field(description="When the last refresh ran (UTC).")
    outcome: str = Field(
        max_length=16,
        description="`refreshed` (prices written), `unchanged` (the same prices), `refused` "
        "(the integrity gate kept the previous prices) or `failed` (download or parse error).",
    )
    message: str = Field(default="", max_length=4000, description="Why, in one line.")
    succeeded_at: dt.datetime | None = Field(
        default=None, description="When a refresh last passed the gate (UTC); null: never."
    )
    offers: int = Field(default=0, description="Offers in the last file read (count).")
    source: str = Field(default="", max_length=2000, description="URL or path read.")


class ProviderStatus(BaseModel):
    """One provider's prices: their age and the last refresh."""

    provider: str = PydanticField(description="Provider id.")
    kind: str | None = PydanticField(
        default=None,
        description="`cloud`, `marketplace` or `broker` (the provider table's `kind`).",
    )
    historical_note: str | None = PydanticField(
        default=None,
        description="Why its prices are historical (no current source); null when current.",
    )
    offers: int = PydanticField(description="Offers in the catalog now (count).")
    newest_price_as_of: dt.date | None = PydanticField(
        description="The newest as-of date among the provider's current prices."
    )
    newest_price_age_days: int | None = PydanticField(description="Days from that date to today.")
    oldest_price_as_of: dt.date | None = PydanticField(
        description="The oldest current price's date."
    )
    last_refresh_at: dt.datetime | None = PydanticField(
        description="When `gpucost catalog refresh` last ran for it (UTC); null: never."
    )
    last_refresh_outcome: RefreshOutcome | None = PydanticField(description="What that run did.")
    last_refresh_message: str | None = PydanticField(description="Why, in one line.")
    last_success_at: dt.datetime | None = PydanticField(
        description="When a refresh last passed the integrity gate (UTC)."
    )


class CatalogStatus(BaseModel):
    """How current the catalog's prices are, per provider."""

    today: dt.date = PydanticField(description="The day ages are counted to (UTC).")
    stale_after_days: int = PydanticField(
        description="Age beyond which defaults avoid a price and answers state its date "
        "(the staleness policy, `docs/prices-and-refresh.md`)."
    )
    providers: list[ProviderStatus] = PydanticField(description="One entry per provider, by id.")
