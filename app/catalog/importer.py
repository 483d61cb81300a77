"""Parse catalog files for import: SkyPilot catalog CSVs (v6, v8, v9) and gpucost's own offer
format (CSV or JSON). Pure: bytes in, offer rows and rejections out; no database.

SkyPilot files are recognised by their header (``InstanceType``, ``AcceleratorName``,
``AcceleratorCount``, ``Price``, ``SpotPrice``, ``Region``); the columns' order and the extra
ones (``GpuInfo``, ``Generation``, ``AvailabilityZone``) differ between v6, v8 and v9 and do
not matter. The provider comes from the path (``.../aws/vms.csv``) or is given. A file whose
path ends like one shipped in ``app/data/sources/skypilot-catalog`` takes that file's date
and note; any other takes the date given, else today.

Our own format, one offer per CSV line or JSON object (a list, or ``{"offers": [...]}``),
is :class:`OfferImportRow`. A malformed line is rejected with its file and line (JSON:
item number); the other lines still import.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from app.catalog.sources import skypilot
from app.catalog.sources.offers import with_billing
from app.models.common import described_by
from app.models.history import future_date_problem
from app.models.offer import CloudOfferPublic, PricingModel, Provider, commitment_problem

SKYPILOT_COLUMNS = {"InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region"}
SKYPILOT_NUMBERS = ("AcceleratorCount", "vCPUs", "MemoryGiB", "Price", "SpotPrice")
SKYPILOT_PROVIDERS = tuple(skypilot.SKYPILOT_FILES)


class ImportError_(ValueError):
    """A whole file cannot be imported (unknown format, no provider, a date in the future)."""


@dataclass(frozen=True)
class Rejected:
    """A row refused: ``file``, ``line`` (1-based, the header is line 1; JSON: item number)
    and why."""

    file: str
    line: int | None
    reason: str

    def __str__(self) -> str:
        return (
            f"{self.file}:{self.line}: {self.reason}"
            if self.line
            else f"{self.file}: {self.reason}"
        )


@dataclass
class ParsedFile:
    """One file's offers (rows for ``cloud_offer``, each with ``_line``), what was rejected,
    what the loaders skipped on purpose (by reason), and the format recognised."""

    name: str
    format: str
    provider: str | None
    as_of: dt.date
    offers: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)


@described_by(CloudOfferPublic)
class OfferImportRow(BaseModel):
    """One offer in gpucost's own import format (CSV columns or JSON fields).

    Required: ``provider``, ``instance_type``, ``gpu_id`` (a catalog GPU id), ``gpu_count``,
    ``pricing_model``, ``price_usd_per_hour`` (the whole instance, USD/h). Optional: ``id``
    (default ``{provider}-{instance_type}[-{region}]-{pricing_model}``), ``region``,
    ``availability_zone``, ``monthly_fee_usd`` (USD/month, default 0), ``vcpus``,
    ``ram_gb`` (GB), ``as_of`` (the day the price took effect; default the import's date),
    ``source`` (default the file name), ``notes``; ``commitment_term_months`` exactly for a
    ``committed_use`` offer, whose ``monthly_fee_usd`` is its monthly bill.
    """

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, str_strip_whitespace=True)

    id: str | None = Field(default=None, max_length=160)
    provider: Provider
    instance_type: str = Field(min_length=1, max_length=100)
    gpu_id: str = Field(min_length=1, max_length=64)
    gpu_count: int = Field(ge=1, le=64)
    pricing_model: PricingModel
    price_usd_per_hour: float = Field(ge=0, le=10_000)
    region: str | None = Field(default=None, max_length=100)
    availability_zone: str | None = Field(default=None, max_length=100)
    monthly_fee_usd: float = Field(default=0, ge=0, le=100_000)
    vcpus: float | None = Field(default=None, ge=0, le=10_000)
    ram_gb: float | None = Field(default=None, ge=0, le=100_000)
    as_of: dt.date | None = None
    source: str | None = Field(default=None, max_length=2000)
    notes: str | None = Field(default=None, max_length=4000)
    commitment_term_months: int | None = Field(default=None, ge=1, le=120)

    @model_validator(mode="after")
    def _commitment(self) -> OfferImportRow:
        problem = commitment_problem(
            self.pricing_model, self.commitment_term_months, self.monthly_fee_usd
        )
        if problem:
            raise ValueError(problem)
        return self


class OfferImportFile(BaseModel):
    """gpucost's own JSON import file: ``{"offers": [...]}`` (a bare list is accepted too)."""

    offers: list[OfferImportRow] = Field(max_length=100_000)


def _known_file(name: str) -> skypilot.CatalogFile | None:
    """The shipped SkyPilot file whose path ``name`` ends with, if any."""
    norm = name.replace("\\", "/")
    for meta in (m for p in skypilot.SKYPILOT_FILES for m in skypilot.catalog_files(p)):
        tail = meta.path.split("/", 1)[1]  # catalogs/vN/provider/file.csv
        if norm.endswith(tail):
            return meta
    return None


def _provider_from_path(name: str) -> str | None:
    parts = [p.lower() for p in name.replace("\\", "/").split("/")]
    found = [p for p in parts if p in SKYPILOT_PROVIDERS]
    return found[-1] if found else None


def _schema_version(name: str) -> str:
    parts = name.replace("\\", "/").split("/")
    return next((p for p in parts if p in ("v6", "v7", "v8", "v9")), "unversioned")


def _check_date(day: dt.date, today: dt.date) -> dt.date:
    problem = future_date_problem(day, today)
    if problem:
        raise ImportError_(problem)
    return day


def parse(
    name: str,
    data: bytes,
    *,
    provider: str | None = None,
    as_of: dt.date | None = None,
    source: str | None = None,
    today: dt.date | None = None,
) -> ParsedFile:
    """Parse one file (``name`` is its path or upload name). Raises :class:`ImportError_`
    when the whole file is unusable, a CSV cell over the csv module's field limit (128 KiB)
    included, naming its line."""
    today = today or dt.datetime.now(dt.UTC).date()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportError_(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        return _parse_own_json(name, stripped, as_of, source, today)
    reader = csv.DictReader(io.StringIO(text))
    try:
        return _parse_csv(name, reader, provider, as_of, source, today)
    except csv.Error as exc:  # a cell over the csv module's field limit (128 KiB), a NUL
        raise ImportError_(f"{name}: line {reader.line_num + 1}: {exc}") from None


def _parse_csv(
    name: str,
    reader: csv.DictReader[str],
    provider: str | None,
    as_of: dt.date | None,
    source: str | None,
    today: dt.date,
) -> ParsedFile:
    """A CSV file by its header: SkyPilot's catalog or gpucost's own."""
    header = {h.strip() for h in (reader.fieldnames or []) if h}
    if header >= SKYPILOT_COLUMNS:
        return _parse_skypilot(name, reader, provider, as_of, source, today)
    if {"provider", "instance_type", "price_usd_per_hour"} <= header:
        return _parse_own_csv(name, reader, as_of, source, today)
    raise ImportError_(
        f"{name}: unknown format: a SkyPilot catalog CSV needs columns "
        f"{', '.join(sorted(SKYPILOT_COLUMNS))}; gpucost's CSV needs provider, instance_type, "
        "gpu_id, gpu_count, pricing_model, price_usd_per_hour"
    )


def _nul_problem(row: dict[Any, Any]) -> str | None:
    """Why a row is refused for a NUL character in a field (PostgreSQL's text cannot hold
    one), or None."""
    for key, value in row.items():
        if (isinstance(value, str) and "\x00" in value) or (isinstance(key, str) and "\x00" in key):
            return f"{str(key).replace(chr(0), '?')}: contains a NUL character (U+0000)"
    return None


def _number_problem(row: dict[str, str]) -> str | None:
    for col in SKYPILOT_NUMBERS:
        text = row.get(col, "")
        if text == "":
            continue
        try:
            value = float(text)
        except ValueError:
            return f"{col} '{text}' is not a number"
        if not math.isfinite(value) or value < 0:
            return f"{col} {text} is not a finite non-negative number"
    if row.get("AcceleratorName") and row.get("AcceleratorCount", "") != "":
        count = float(row["AcceleratorCount"])
        if count < 1 or count != int(count):
            return f"AcceleratorCount {row['AcceleratorCount']} is not a whole number of GPUs"
    if not row.get("InstanceType") and not row.get("AcceleratorName"):
        return "InstanceType and AcceleratorName are both empty (GCP's GPU rows name only the GPU)"
    if not row.get("Region"):
        return "Region is empty"
    return None


def _parse_skypilot(
    name: str,
    reader: csv.DictReader[str],
    provider: str | None,
    as_of: dt.date | None,
    source: str | None,
    today: dt.date,
) -> ParsedFile:
    provider = provider or _provider_from_path(name)
    if provider not in SKYPILOT_PROVIDERS:
        raise ImportError_(
            f"{name}: cannot tell the provider from the path; give one of "
            f"{', '.join(SKYPILOT_PROVIDERS)}"
        )
    known = _known_file(name)
    if known is not None and as_of is None:
        meta = known
    else:
        day = _check_date(as_of or today, today)
        meta = skypilot.CatalogFile(name, day, f"imported from {name}")
    src = source or (skypilot.skypilot_url(known.path) if known else f"import of {name}")
    numbered = ((reader.line_num, raw) for raw in reader)
    return parse_skypilot_rows(
        name, f"skypilot {_schema_version(name)}", provider, numbered, meta, src
    )


def parse_skypilot_rows(
    name: str,
    fmt: str,
    provider: str,
    rows: Iterable[tuple[int, dict[str, Any]]],
    meta: skypilot.CatalogFile,
    source: str,
) -> ParsedFile:
    """Offers from rows in SkyPilot's columns (``(line, row)`` pairs: a file's, or rows a live
    API's answer was translated into), each row checked (numbers, NULs) before the provider's
    loader maps it; ``fmt`` names what was read, ``meta`` dates it."""
    out = ParsedFile(name, fmt, provider, meta.as_of)
    kept = []
    for line, raw in rows:
        row = {k.strip(): str(v or "").strip() for k, v in raw.items() if k}
        problem = _nul_problem(row) or _number_problem(row)
        if problem:
            out.rejected.append(Rejected(name, line, problem))
            continue
        row["_line"] = str(line)
        kept.append(row)
    report = skypilot.LoadReport({})
    offers = skypilot.load_skypilot(provider, report, skypilot.SkyPilotInput(meta, kept, source))
    out.offers = with_billing(offers)
    out.skipped = report.skipped
    return out


def _own_row(
    name: str,
    line: int,
    data: dict[str, Any],
    as_of: dt.date | None,
    source: str | None,
    today: dt.date,
) -> dict[str, Any]:
    data = {k: (None if v == "" else v) for k, v in data.items() if k is not None}
    row = OfferImportRow.model_validate(data)
    day = _check_date(row.as_of or as_of or today, today)
    offer = skypilot.offer_row(
        row.provider.value,
        row.instance_type,
        row.gpu_id,
        row.gpu_count,
        row.pricing_model.value,
        row.price_usd_per_hour,
        row.region,
        source=row.source or source or f"import of {name}",
        as_of=day,
        vcpus=row.vcpus,
        ram_gb=row.ram_gb,
        availability_zone=row.availability_zone,
        monthly_fee_usd=row.monthly_fee_usd,
        notes=row.notes,
        commitment_term_months=row.commitment_term_months,
    )
    if row.id:
        offer["id"] = row.id
    offer["_line"] = line
    return offer


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'row'}: {e['msg']}" for e in exc.errors()
        )
    return str(exc)


def _parse_own(
    name: str,
    fmt: str,
    items: Iterable[tuple[int, Any]],
    as_of: dt.date | None,
    source: str | None,
    today: dt.date,
) -> ParsedFile:
    """Our own format, from ``(line or item number, fields)`` pairs, CSV or JSON alike."""
    out = ParsedFile(name, fmt, None, as_of or today)
    for line, item in items:
        try:
            if not isinstance(item, dict):
                raise ImportError_("an offer must be a JSON object")
            problem = _nul_problem(item)
            if problem:
                raise ImportError_(problem)
            out.offers.append(_own_row(name, line, item, as_of, source, today))
        except (ValidationError, ImportError_) as exc:
            out.rejected.append(Rejected(name, line, _reason(exc)))
    out.offers = with_billing(out.offers)
    return out


def _parse_own_csv(
    name: str,
    reader: csv.DictReader[str],
    as_of: dt.date | None,
    source: str | None,
    today: dt.date,
) -> ParsedFile:
    rows = ((reader.line_num, raw) for raw in reader)  # line_num: after reading the row
    return _parse_own(name, "gpucost csv", rows, as_of, source, today)


def _parse_own_json(
    name: str, text: str, as_of: dt.date | None, source: str | None, today: dt.date
) -> ParsedFile:
    try:
        # orjson refuses nesting past 1,024 levels (its documented recursion limit) with a
        # decode error, where the json module raises RecursionError; an import file is 3
        # levels deep.
        doc = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise ImportError_(f"{name}: not valid JSON ({exc})") from None
    items = doc.get("offers") if isinstance(doc, dict) else doc
    if not isinstance(items, list):
        raise ImportError_(f'{name}: JSON must be a list of offers or {{"offers": [...]}}')
    return _parse_own(name, "gpucost json", enumerate(items, start=1), as_of, source, today)
