"""What every live price source shares: :class:`LiveApi` (one per provider, registered in
:mod:`app.catalog.apis`), the rows it translates an answer into (:class:`LiveRows`, in
SkyPilot's columns, so the provider's catalog loader maps them and offer ids match the shipped
catalog's), and :class:`Fetch`, the bounded HTTP reads (timeouts, retries with back-off, a
size bound on a JSON answer, a deadline on a streamed one).

A live source's answer is dated the day it was fetched (its prices hold that day), unless the
answer carries its own publication date (AWS's bulk files), which is then stated.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
import orjson

from app.catalog.refresh import Download, SourceError, read_bounded, retrying
from app.catalog.sources.files import SOURCES, read_csv
from app.catalog.sources.skypilot import SKYPILOT_FILES, catalog_files
from app.settings import Settings

Row = dict[str, Any]
T = TypeVar("T")


@dataclass(frozen=True)
class LiveRows:
    """A live answer as SkyPilot-column rows: ``rows`` (``(number, row)`` pairs; the number
    names the item in error messages), the day the prices hold (``as_of``), how that day was
    read (``note``, stated on every offer) and where from (``source``: a URL with no key)."""

    rows: list[tuple[int, Row]]
    as_of: dt.date
    note: str
    source: str
    skipped: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class LiveApi:
    """One provider's live price source: its ``provider`` id, what it is (``title``, with the
    documentation page its format is read from: ``docs_url``), the setting holding its API
    key (``key_setting``; None: no key) and ``read(fetch, settings, today)``, which fetches
    and translates. ``read`` raises :class:`SourceError` when the answer cannot be read."""

    provider: str
    title: str
    docs_url: str
    key_setting: str | None
    read: Callable[[Fetch, Settings, dt.date], LiveRows]


class Fetch:
    """Bounded HTTP reads over one client: :meth:`json` reads an answer whole (at most
    ``download.max_bytes``), :meth:`lines` streams a large one line by line (within
    ``download.deadline_s``). Each retries transport errors, 408/425/429 and 5xx with
    exponential back-off (``download.attempts`` tries). A key goes in a header, never in a
    URL that is printed or stored."""

    def __init__(self, download: Download, client: httpx.Client | None = None) -> None:
        self.download = download
        self.client = client or httpx.Client(timeout=download.timeout_s, follow_redirects=True)

    def _retrying(self, call: Callable[[], T]) -> T:
        """``call()`` retried as :func:`app.catalog.refresh.retrying` says; an HTTP error
        that outlasts the tries is a :class:`SourceError`."""
        try:
            return retrying(self.download)(call)()
        except httpx.HTTPStatusError as exc:
            raise SourceError(f"{exc.request.url}: HTTP {exc.response.status_code}") from None
        except httpx.HTTPError as exc:
            raise SourceError(
                f"{type(exc).__name__} after {self.download.attempts} tries"
            ) from None

    def json(self, method: str, url: str, **kwargs: Any) -> Any:
        """The JSON answer of one request. Raises :class:`SourceError` (HTTP error, too large,
        too slow, not JSON)."""
        deadline = time.monotonic() + self.download.deadline_s

        def call() -> bytes:
            with self.client.stream(method, url, **kwargs) as response:
                response.raise_for_status()
                return read_bounded(response, url, self.download, deadline)

        data = self._retrying(call)
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise SourceError(f"{url}: not JSON ({exc})") from None

    def lines(self, url: str) -> Iterator[str]:
        """The lines of a large text answer, streamed (never held whole); the first byte is
        retried, a break after it is a :class:`SourceError`."""
        deadline = time.monotonic() + self.download.deadline_s
        cm = self._retrying(lambda: _opened(self.client, url))
        try:
            for line in cm.iter_lines():
                if time.monotonic() > deadline:
                    raise SourceError(f"{url}: not read within {self.download.deadline_s:g} s")
                yield line
        except httpx.HTTPError as exc:
            raise SourceError(f"{url}: {type(exc).__name__} while streaming") from None
        finally:
            cm.close()


def _opened(client: httpx.Client, url: str) -> httpx.Response:
    request = client.build_request("GET", url)
    response = client.send(request, stream=True)
    try:
        response.raise_for_status()
    except httpx.HTTPStatusError:
        response.close()
        raise
    return response


@dataclass(frozen=True)
class Instance:
    """An instance type the shipped catalog knows for a provider: its SkyPilot columns
    (accelerator, count, vCPUs, memory) and the regions it is offered in."""

    columns: Row
    regions: frozenset[str]


def known_instances(provider: str) -> dict[str, Instance]:
    """The provider's instance types in its shipped SkyPilot files, by name: what a live
    answer that names only an instance type (Azure's SKU, AWS's instance type) is mapped
    through, so a live price updates the shipped offer with the same id."""
    if provider not in SKYPILOT_FILES:
        return {}
    found: dict[str, Instance] = {}
    for meta in catalog_files(provider):
        for r in read_csv(SOURCES / meta.path):
            if not r.get("AcceleratorName"):
                continue
            name = r["InstanceType"]
            kept = found.get(name)
            regions = (kept.regions if kept else frozenset()) | {r["Region"]}
            columns: Row = {
                k: r[k]
                for k in ("AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "GpuInfo")
                if k in r
            }
            found[name] = Instance(columns, regions)
    return found


def fetched_note(title: str, url: str, today: dt.date) -> str:
    """The note of prices read live: what, where from, and the fetch day."""
    return f"{title}, {url}, fetched {today.isoformat()} (prices hold that day)"
