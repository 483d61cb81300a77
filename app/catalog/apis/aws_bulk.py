"""AWS's Price List bulk offer files (no key): the on-demand Linux prices of the GPU instance
types the catalog carries, per region, streamed line by line (a region's EC2 file is hundreds
of MB; only the GPU rows are kept).

Format (AWS Price List API guide, "Reading the price list file" for CSV): per region,
``/offers/v1.0/aws/AmazonEC2/current/<region>/index.csv`` starts with five metadata lines
(``"FormatVersion"``, ``"Disclaimer"``, ``"Publication Date"``, ``"Version"``,
``"OfferCode"``), then a header and one line per SKU and term. A price line has ``TermType``
("OnDemand" or "Reserved"), ``Unit`` ("Hrs"), ``PricePerUnit``, ``Currency``, and the product's
``Instance Type``, ``Operating System``, ``Tenancy``, ``Pre Installed S/W``,
``CapacityStatus``, ``License Model`` and ``Region Code``. A Linux, shared-tenancy,
no-pre-installed-software on-demand line is the on-demand price (``CapacityStatus`` "Used":
not a reservation's unused capacity). Spot prices are not in these files: a refresh from
here leaves the catalog's spot prices as they are. The file's publication date dates its
prices.
"""

from __future__ import annotations

import csv
import datetime as dt
from collections.abc import Iterator

from app.catalog.apis.base import Fetch, Instance, LiveApi, LiveRows, Row, known_instances
from app.catalog.refresh import SourceError
from app.catalog.sources.skypilot import LoadReport
from app.settings import Settings

ENDPOINT = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current"
DOCS = "https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/reading-an-offer.html"
METADATA_LINES = 5
WANTED = {
    "TermType": "OnDemand",
    "Unit": "Hrs",
    "Currency": "USD",
    "Operating System": "Linux",
    "Tenancy": "Shared",
    "Pre Installed S/W": "NA",
    "CapacityStatus": "Used",
}


def region_url(region: str) -> str:
    """The bulk CSV of one region's EC2 prices."""
    return f"{ENDPOINT}/{region}/index.csv"


def _published(metadata: list[list[str]], url: str) -> dt.date:
    """The file's ``Publication Date`` (an ISO timestamp)."""
    for cells in metadata:
        if len(cells) >= 2 and cells[0] == "Publication Date":
            try:
                return dt.date.fromisoformat(cells[1][:10])
            except ValueError:
                break
    raise SourceError(f"{url}: no readable Publication Date in the first {METADATA_LINES} lines")


def _region_rows(
    lines: Iterator[str], url: str, known: dict[str, Instance], report: LoadReport
) -> tuple[dt.date, list[tuple[int, Row]]]:
    """One region file's publication date and its kept price lines as SkyPilot rows."""
    reader = csv.reader(lines)
    metadata = [next(reader, []) for _ in range(METADATA_LINES)]
    published = _published(metadata, url)
    header = next(reader, None)
    if not header or not set(WANTED) | {"Instance Type", "PricePerUnit", "Region Code"} <= set(
        header
    ):
        raise SourceError(f"{url}: not an EC2 price list CSV (header {str(header)[:200]})")
    at = {name: i for i, name in enumerate(header)}
    rows: list[tuple[int, Row]] = []
    for cells in reader:
        if len(cells) != len(header):
            report.skip("aws bulk: a line with the wrong number of cells")
            continue
        itype = cells[at["Instance Type"]]
        if itype not in known:
            continue  # not a GPU instance type the catalog carries (most lines): not counted
        if any(cells[at[k]] != v for k, v in WANTED.items()):
            continue  # another term, OS, tenancy or capacity: not this catalog's price
        if "License Model" in at and cells[at["License Model"]] != "No License required":
            continue
        row = {
            "InstanceType": itype,
            "Region": cells[at["Region Code"]],
            "AvailabilityZone": "",
            "Price": cells[at["PricePerUnit"]],
            "SpotPrice": "",
            **known[itype].columns,
        }
        rows.append((reader.line_num, row))
    return published, rows


def read(fetch: Fetch, settings: Settings, today: dt.date) -> LiveRows:
    """The on-demand prices in each region of ``settings.refresh_aws_regions``; dated the
    oldest publication date among the files read."""
    known = known_instances("aws")
    report = LoadReport({})
    rows: list[tuple[int, Row]] = []
    dates = []
    regions = settings.refresh_aws_regions.split(",")
    for region in regions:
        url = region_url(region)
        published, found = _region_rows(fetch.lines(url), url, known, report)
        dates.append(published)
        rows += found
    if not dates:
        raise SourceError("no AWS region to read (GPUCOST_REFRESH_AWS_REGIONS is empty)")
    as_of = min(dates)
    note = (
        f"AWS Price List bulk EC2 files ({', '.join(regions)}), published "
        f"{as_of.isoformat()}, fetched {today.isoformat()}; on-demand Linux, shared tenancy"
    )
    return LiveRows(rows, as_of, note, f"{ENDPOINT}/<region>/index.csv", report.skipped)


API = LiveApi("aws", "AWS Price List bulk offer files (EC2)", DOCS, None, read)
