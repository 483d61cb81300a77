"""``gpucost catalog refresh``: the newest SkyPilot catalog files, or live provider APIs
(``--api``), through the integrity gate, into the catalog (see :mod:`app.store.refresh`)."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

import typer

from app.catalog.refresh import CATALOG_VERSIONS
from app.cli.catalog import catalog_app

if TYPE_CHECKING:
    from app.catalog.refresh import Download, GateBounds
    from app.settings import Settings
    from app.store.refresh import ProviderResult

EXIT_SOME_REFUSED = 3
EXIT_NONE_REFRESHED = 2


@catalog_app.command("refresh")
def catalog_refresh(
    source: str | None = typer.Option(
        None,
        "--from",
        help="A URL or a local directory with the skypilot-catalog layout "
        "(catalogs/<version>/<cloud>/vms.csv). Default: GPUCOST_REFRESH_SOURCE (the "
        "skypilot-org/skypilot-catalog raw files).",
    ),
    provider: list[str] = typer.Option(
        [], "--provider", help="Only these providers (repeat). Default: every one we carry."
    ),
    loop: bool = typer.Option(
        False, "--loop", help="Run again every GPUCOST_REFRESH_INTERVAL_S seconds, for ever."
    ),
    api: list[str] = typer.Option(
        [],
        "--api",
        help="Read these providers' live APIs instead of SkyPilot's catalog (repeat): azure "
        "(Retail Prices API), aws (bulk EC2 price files, GPUCOST_REFRESH_AWS_REGIONS), vast "
        "(offer search), runpod (GraphQL, needs GPUCOST_RUNPOD_API_KEY); 'all' for every one "
        "whose key is set.",
    ),
) -> None:
    """Download each provider's newest SkyPilot catalog file, check it (schema and types,
    row counts, price changes against the current prices; the bounds are the
    GPUCOST_REFRESH_* settings) and import what passes through the transactional import,
    keeping every replaced price in the price history. A provider whose file is missing or
    refused keeps its previous prices.

    Prints one line per provider: refreshed, unchanged, refused or failed, and why.
    Exit status: 0 every provider refreshed or unchanged; 3 some refused or failed; 2 none
    refreshed or unchanged."""
    if api:
        raise typer.Exit(_refresh_apis(api))
    unknown = sorted(set(provider) - set(CATALOG_VERSIONS))
    if unknown:
        raise typer.BadParameter(
            f"unknown provider {', '.join(unknown)}; one of {', '.join(CATALOG_VERSIONS)}",
            param_hint="--provider",
        )
    providers = provider or list(CATALOG_VERSIONS)
    while True:
        if not loop:
            raise typer.Exit(_refresh_once(source, providers))
        try:
            _refresh_once(source, providers)
        except Exception:  # noqa: BLE001 - the loop outlives one bad round (logged)
            logging.getLogger("gpucost.catalog").exception("refresh round failed")
        from app.settings import get_settings

        time.sleep(get_settings().refresh_interval_s)


def _apis_named(names: list[str]) -> list[str]:
    """The live APIs named (``all``: every one whose key is set), or a usage error."""
    from app.catalog.apis import LIVE_APIS
    from app.settings import get_settings

    if "all" in names:
        keyed = get_settings().runpod_api_key is not None
        return [p for p, a in LIVE_APIS.items() if a.key_setting is None or keyed]
    unknown = sorted(set(names) - set(LIVE_APIS))
    if unknown:
        raise typer.BadParameter(
            f"no live API for {', '.join(unknown)}; one of {', '.join(LIVE_APIS)} or all",
            param_hint="--api",
        )
    return list(dict.fromkeys(names))


def _refresh_apis(names: list[str]) -> int:
    from app.catalog.apis.base import Fetch
    from app.db import get_engine
    from app.settings import get_settings
    from app.store.refresh import refresh_apis

    s = get_settings()
    fetch = Fetch(_download(s))
    results = refresh_apis(get_engine(), _apis_named(names), s, _bounds(s), fetch)
    return _report("live APIs", results)


def _bounds(s: Settings) -> GateBounds:
    from app.catalog.refresh import GateBounds

    return GateBounds(
        min_offers_ratio=s.refresh_min_offers_ratio,
        max_rejected_share=s.refresh_max_rejected_share,
        max_price_change=s.refresh_max_price_change,
        max_moved_share=s.refresh_max_moved_share,
        max_median_change=s.refresh_max_median_change,
        max_price_factor=s.refresh_max_price_factor,
        max_added_ratio=s.refresh_max_added_ratio,
        min_added=s.refresh_min_added,
    )


def _download(s: Settings) -> Download:
    from app.catalog.refresh import Download

    return Download(
        timeout_s=s.refresh_timeout_s, attempts=s.refresh_attempts, max_bytes=s.refresh_max_bytes
    )


def _report(where: str, results: list[ProviderResult]) -> int:
    """Print one line per provider; the exit status."""
    from rich.console import Console
    from rich.markup import escape

    out = Console(soft_wrap=True)
    out.print(f"refresh from {where}")
    style = {"refreshed": "green", "unchanged": "default", "refused": "yellow", "failed": "red"}
    for r in results:
        out.print(
            f"  {r.provider:<11} [{style[r.outcome]}]{r.outcome:<9}[/] {r.offers:>5} offers  "
            f"{escape(r.message)}"
        )
    good = sum(r.outcome in ("refreshed", "unchanged") for r in results)
    if good == len(results):
        return 0
    return EXIT_SOME_REFUSED if good else EXIT_NONE_REFRESHED


def _refresh_once(source: str | None, providers: list[str]) -> int:
    from app.db import get_engine
    from app.settings import get_settings
    from app.store.refresh import refresh

    s = get_settings()
    base = source or s.refresh_source
    return _report(base, refresh(get_engine(), providers, base, _bounds(s), _download(s)))
