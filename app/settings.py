"""Service settings (pydantic-settings), read from ``GPUCOST_*`` environment variables.

The defaults make ``make run`` work with no configuration: an SQLite file and the built-in
catalog.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GPUCOST_", env_file=".env", extra="ignore")

    database_url: str = Field(
        default="sqlite:///./gpucost.db",
        description="SQLAlchemy URL; `postgresql+psycopg://...` for PostgreSQL.",
    )
    default_electricity_price_usd_per_kwh: float = Field(
        default=0.12,
        gt=0,
        le=10,
        description="Electricity price when a request gives neither price nor region, USD/kWh. "
        "Source: seed 001 (Tim Dettmers, 2020-09-07), 'USD 0.12 per kWh (US)'.",
    )
    default_region: str = Field(
        default="world",
        description="Region whose carbon intensity is used when a request names none "
        "(`world` = 475 gCO2e/kWh, IEA 2019 via Green Algorithms).",
    )
    max_request_body_bytes: int = Field(
        default=64 * 1024, description="Request bodies larger than this get 413."
    )


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings (cached; tests clear the cache to override)."""
    return Settings()
