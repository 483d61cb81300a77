"""`gpucost catalog refresh`, the part with no database: where each provider's SkyPilot
catalog file lives upstream (or in a mirror with the same layout), downloading it with
timeouts and retries, and the integrity gate a parsed file must pass before anything is
written. :mod:`app.store.refresh` applies what passes.

A mirror is the repository's layout: ``<base>/catalogs/<version>/<cloud>/vms.csv``, where
``base`` is a URL (default: the skypilot-org/skypilot-catalog raw files) or a local directory
(a clone, or files copied there by hand: that is how air-gapped labs and the tests use it).
"""

from __future__ import annotations

import datetime as dt
import statistics
from dataclasses import dataclass
from pathlib import Path

import httpx
from tenacity import (
    retry,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from app.catalog.importer import ImportError_, ParsedFile, parse

UPSTREAM = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master"

# The schema version read per provider: v8 is the newest SkyPilot still refreshes (its README,
# read 2026-11-24); Paperspace has no file after v6 (SkyPilot carries DigitalOcean as `do`).
CATALOG_VERSIONS = {
    "aws": "v8",
    "gcp": "v8",
    "azure": "v8",
    "lambda": "v8",
    "runpod": "v8",
    "paperspace": "v6",
}


def catalog_path(provider: str) -> str:
    """The file's path inside a mirror, e.g. ``catalogs/v8/aws/vms.csv``."""
    return f"catalogs/{CATALOG_VERSIONS[provider]}/{provider}/vms.csv"


class SourceError(Exception):
    """A file could not be read (missing, HTTP error, timeout after every retry)."""


@dataclass(frozen=True)
class Download:
    """How to download: per-request timeout (s), attempts (1 = no retry), first back-off (s,
    doubled per retry, at most 30 s)."""

    timeout_s: float = 30.0
    attempts: int = 3
    backoff_s: float = 1.0


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, httpx.HTTPStatusError):
        return exc.response.status_code in (408, 425, 429) or exc.response.status_code >= 500
    return isinstance(exc, httpx.TransportError)


def read_source(base: str, path: str, download: Download = Download()) -> tuple[bytes, str]:
    """The bytes of ``path`` under ``base`` (a URL or a local directory) and the URL or file
    path they came from. Raises :class:`SourceError`."""
    if not base.startswith(("http://", "https://")):
        local = Path(base.removeprefix("file://")) / path
        try:
            return local.read_bytes(), str(local)
        except OSError as exc:
            raise SourceError(f"{local}: {exc.strerror or exc}") from None
    url = f"{base.rstrip('/')}/{path}"

    @retry(
        retry=retry_if_exception(_retryable),
        stop=stop_after_attempt(max(1, download.attempts)),
        wait=wait_exponential(multiplier=download.backoff_s, max=30),
        reraise=True,
    )
    def get(client: httpx.Client) -> bytes:
        response = client.get(url)
        response.raise_for_status()
        return response.content

    try:
        with httpx.Client(timeout=download.timeout_s, follow_redirects=True) as client:
            return get(client), url
    except httpx.HTTPStatusError as exc:
        raise SourceError(f"{url}: HTTP {exc.response.status_code}") from None
    except httpx.HTTPError as exc:
        raise SourceError(f"{url}: {type(exc).__name__} after {download.attempts} tries") from None


@dataclass(frozen=True)
class GateBounds:
    """What a provider's new file must satisfy before it replaces the previous prices.

    ``min_offers_ratio``: at least this share of the previous version's offer count;
    ``max_rejected_share``: at most this share of rows rejected as malformed;
    ``max_price_change``: a price moving by more than this fraction (0.5: halved or +50 %)
    counts as a big move; ``max_moved_share``: at most this share of the offers in both
    versions may make a big move; ``max_median_change``: the median move of those offers."""

    min_offers_ratio: float = 0.5
    max_rejected_share: float = 0.05
    max_price_change: float = 0.5
    max_moved_share: float = 0.25
    max_median_change: float = 0.3


def parse_file(provider: str, name: str, data: bytes, today: dt.date) -> ParsedFile:
    """The file's offers, dated ``today`` (the day they were read). Raises
    :class:`ImportError_` when it is not a SkyPilot catalog file."""
    parsed = parse(name, data, provider=provider, as_of=today, source=name, today=today)
    if not parsed.format.startswith("skypilot"):
        raise ImportError_(f"{name}: not a SkyPilot catalog file ({parsed.format})")
    return parsed


def gate(
    parsed: ParsedFile,
    previous_prices: dict[str, float],
    previous_count: int,
    bounds: GateBounds,
) -> str | None:
    """Why ``parsed`` is refused, or None when it passes. ``previous_prices``: the provider's
    current prices by offer id (USD/h); ``previous_count``: the offers its last version had."""
    rows = len(parsed.offers) + len(parsed.rejected)
    if not parsed.offers:
        return f"no offers in the file ({rows} rows read)"
    if rows and len(parsed.rejected) / rows > bounds.max_rejected_share:
        first = parsed.rejected[0]
        return (
            f"{len(parsed.rejected)} of {rows} rows malformed (limit "
            f"{bounds.max_rejected_share:.0%}), e.g. line {first.line}: {first.reason}"
        )
    floor = bounds.min_offers_ratio * previous_count
    if len(parsed.offers) < floor:
        return (
            f"{len(parsed.offers)} offers, fewer than {bounds.min_offers_ratio:.0%} of the "
            f"previous {previous_count}"
        )
    moves = [
        abs(o["price_usd_per_hour"] / previous_prices[o["id"]] - 1)
        for o in parsed.offers
        if previous_prices.get(o["id"])
    ]
    if not moves:
        return None
    big = sum(m > bounds.max_price_change for m in moves)
    if big / len(moves) > bounds.max_moved_share:
        return (
            f"{big} of {len(moves)} known offers moved by more than "
            f"{bounds.max_price_change:.0%} (limit {bounds.max_moved_share:.0%} of them)"
        )
    median = statistics.median(moves)
    if median > bounds.max_median_change:
        return f"the median price moved by {median:.0%} (limit {bounds.max_median_change:.0%})"
    return None
