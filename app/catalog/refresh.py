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
import stat
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import httpx
from tenacity import (
    retry,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from app.catalog.importer import ImportError_, ParsedFile, parse
from app.catalog.sources import skypilot

T = TypeVar("T")

UPSTREAM = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master"

# The SkyPilot schema folders this parser understands, newest first: a refresh reads each
# provider's file from the newest folder that has it (and says which). v8 is the newest the
# catalog's README says is refreshed (read 2026-11-24); v9 files exist for some providers
# (Lambda, Vast, Nebius: same columns). Paperspace has no file after v6.
SCHEMA_VERSIONS = ("v9", "v8", "v7", "v6")

# Every provider the catalog ships a SkyPilot file for, and the newest folder the shipped
# snapshot was read from (the CLI's list; a refresh tries newer folders first).
CATALOG_VERSIONS = {
    provider: meta.path.split("/")[2] for provider, meta in skypilot.SKYPILOT_FILES.items()
}


def catalog_path(provider: str, version: str | None = None) -> str:
    """The file's path inside a mirror, e.g. ``catalogs/v8/aws/vms.csv`` (``version`` None:
    the shipped snapshot's folder)."""
    return f"catalogs/{version or CATALOG_VERSIONS[provider]}/{provider}/vms.csv"


def catalog_paths(provider: str) -> list[str]:
    """The paths a refresh tries for ``provider``, newest schema first."""
    return [catalog_path(provider, v) for v in SCHEMA_VERSIONS]


class SourceError(Exception):
    """A file could not be read (missing, HTTP error, timeout after every retry)."""


@dataclass(frozen=True)
class Download:
    """How to read a file: per-request timeout (s), attempts (1 = no retry), first back-off
    (s, doubled per retry, at most 30 s), the most bytes a file may have (``max_bytes``,
    16 MiB: 4x SkyPilot's largest v8 file, AWS's vms.csv at 3.65 MB, commit 00148f2 of
    skypilot-org/skypilot-catalog, read 2026-11-26) and the most seconds one download may
    take in all (``deadline_s``: a server trickling a byte per timeout is cut off)."""

    timeout_s: float = 30.0
    attempts: int = 3
    backoff_s: float = 1.0
    max_bytes: int = 16 * 1024 * 1024
    deadline_s: float = 120.0


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, httpx.HTTPStatusError):
        return exc.response.status_code in (408, 425, 429) or exc.response.status_code >= 500
    return isinstance(exc, httpx.TransportError)


def retrying(download: Download) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Tenacity's retry for ``download``: transport errors, 408/425/429 and 5xx, exponential
    back-off from ``backoff_s`` (at most 30 s), ``attempts`` tries, the last error raised."""
    return retry(
        retry=retry_if_exception(_retryable),
        stop=stop_after_attempt(max(1, download.attempts)),
        wait=wait_exponential(multiplier=download.backoff_s, max=30),
        reraise=True,
    )


def read_bounded(response: httpx.Response, url: str, download: Download, deadline: float) -> bytes:
    """A streamed answer's bytes, cut off past ``download.max_bytes`` or the ``deadline``
    (``time.monotonic()``): a :class:`SourceError` names which."""
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > download.max_bytes:
            raise SourceError(f"{url}: larger than {download.max_bytes} bytes")
        if time.monotonic() > deadline:
            raise SourceError(f"{url}: not read within {download.deadline_s:g} s")
        chunks.append(chunk)
    return b"".join(chunks)


def _read_local(local: Path, max_bytes: int) -> bytes:
    """A regular file's bytes, at most ``max_bytes`` (a FIFO, a device such as /dev/zero or a
    directory is refused before it is opened: reading one would hang or never end)."""
    try:
        if not stat.S_ISREG(local.stat().st_mode):
            raise SourceError(f"{local}: not a regular file")
        with local.open("rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as exc:
        raise SourceError(f"{local}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise SourceError(f"{local}: larger than {max_bytes} bytes")
    return data


def read_source(base: str, path: str, download: Download = Download()) -> tuple[bytes, str]:
    """The bytes of ``path`` under ``base`` (a URL or a local directory) and the URL or file
    path they came from, within ``download``'s size and time bounds (streamed: a larger
    answer is cut off at the bound, not read whole). Raises :class:`SourceError`."""
    if not base.startswith(("http://", "https://")):
        local = Path(base.removeprefix("file://")) / path
        if not local.exists():
            raise NotThere(f"{local}: no such file")
        return _read_local(local, download.max_bytes), str(local)
    url = f"{base.rstrip('/')}/{path}"
    deadline = time.monotonic() + download.deadline_s

    @retrying(download)
    def get(client: httpx.Client) -> bytes:
        with client.stream("GET", url) as response:
            response.raise_for_status()
            return read_bounded(response, url, download, deadline)

    try:
        with httpx.Client(timeout=download.timeout_s, follow_redirects=True) as client:
            return get(client), url
    except httpx.HTTPStatusError as exc:
        gone = exc.response.status_code in (404, 410)
        raise (NotThere if gone else SourceError)(
            f"{url}: HTTP {exc.response.status_code}"
        ) from None
    except httpx.HTTPError as exc:
        raise SourceError(f"{url}: {type(exc).__name__} after {download.attempts} tries") from None


class NotThere(SourceError):
    """The file is not at that path (a missing local file, HTTP 404 or 410)."""


def read_newest(base: str, provider: str, download: Download = Download()) -> tuple[bytes, str]:
    """The provider's file from the newest schema folder under ``base`` that has it
    (:data:`SCHEMA_VERSIONS`), and where it came from (the URL or path names the folder).
    A folder without the file is passed over; any other failure (a timeout, a server error,
    a file too large) stops the search, so an older folder never stands in for a newer one
    that could not be read. Raises :class:`SourceError` when no folder has it."""
    missing = []
    for path in catalog_paths(provider):
        try:
            return read_source(base, path, download)
        except NotThere as exc:
            missing.append(str(exc))
    raise SourceError(f"no {provider} file in any schema folder: {'; '.join(missing)}")


@dataclass(frozen=True)
class GateBounds:
    """What a provider's new file must satisfy before it replaces the previous prices.

    ``min_offers_ratio``: at least this share of the previous version's offer count;
    ``max_rejected_share``: at most this share of rows rejected as malformed;
    ``max_price_change``: a price moving by more than this fraction (0.5: halved or +50 %)
    counts as a big move; ``max_moved_share``: at most this share of the offers in both
    versions may make a big move; ``max_median_change``: the median move of those offers;
    ``max_price_factor``: no price may move, nor a new offer stand, further than this factor
    from its previous price or from the median per-GPU-hour price of the same GPU and pricing
    model in the catalog (its own history and the other providers); ``max_added_ratio`` and
    ``min_added``: at most ``max(min_added, max_added_ratio x previous count)`` offers new to
    the catalog in one file."""

    min_offers_ratio: float = 0.5
    max_rejected_share: float = 0.05
    max_price_change: float = 0.5
    max_moved_share: float = 0.25
    max_median_change: float = 0.3
    max_price_factor: float = 10.0
    max_added_ratio: float = 1.0
    min_added: int = 1_000


# (GPU id, pricing model) -> the catalog's median price per GPU-hour, USD.
References = dict[tuple[str, str], float]


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
    references: References | None = None,
) -> str | None:
    """Why ``parsed`` is refused, or None when it passes. ``previous_prices``: the provider's
    current prices by offer id (USD/h); ``previous_count``: the offers its last version had;
    ``references``: the catalog's median price per GPU-hour by (GPU, pricing model), which
    offers new to the catalog are held against."""
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
    return _new_offers_problem(parsed, previous_prices, previous_count, bounds, references or {})


def _factor(price: float, reference: float) -> float:
    """How many times apart two positive prices are (>= 1)."""
    return max(price / reference, reference / price)


def _new_offers_problem(
    parsed: ParsedFile,
    previous_prices: dict[str, float],
    previous_count: int,
    bounds: GateBounds,
    references: References,
) -> str | None:
    """The price rules (see :class:`GateBounds`): each single price against its previous one
    or its GPU's reference, the number of new offers, then the share and median of moves."""
    new = [o for o in parsed.offers if o["id"] not in previous_prices]
    cap = max(bounds.min_added, int(bounds.max_added_ratio * previous_count))
    if len(new) > cap:
        return f"{len(new)} offers new to the catalog, more than the {cap} one file may add"
    for o in parsed.offers:
        price = float(o["price_usd_per_hour"])
        before = previous_prices.get(o["id"])
        if before and price > 0 and _factor(price, before) > bounds.max_price_factor:
            return (
                f"offer {o['id']}: {price:g} USD/h against {before:g} before, more than "
                f"{bounds.max_price_factor:g}x apart"
            )
        per_gpu = price / max(1, int(o.get("gpu_count") or 1))
        ref = references.get((str(o.get("gpu_id")), str(o.get("pricing_model"))))
        if not before and ref and per_gpu > 0 and _factor(per_gpu, ref) > bounds.max_price_factor:
            return (
                f"new offer {o['id']}: {per_gpu:g} USD per GPU-hour, more than "
                f"{bounds.max_price_factor:g}x from the catalog's median {ref:g} for "
                f"{o.get('gpu_id')} ({o.get('pricing_model')})"
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
