"""RunPod's GraphQL API (needs a key: ``GPUCOST_RUNPOD_API_KEY``, off when unset): the Secure
Cloud on-demand and interruptible price per GPU of every GPU type, applied to the instance
types (GPU count) and regions the catalog carries for RunPod.

Format (RunPod API docs, GraphQL ``gpuTypes``): ``POST https://api.runpod.io/graphql`` with
``{"query": "query { gpuTypes { id displayName memoryInGb securePrice secureSpotPrice } }"}``
answers ``{"data": {"gpuTypes": [{"id": "NVIDIA GeForce RTX 4090", "displayName": "RTX 4090",
"memoryInGb": 24, "securePrice": 0.69, "secureSpotPrice": 0.34}, ...]}}`` (USD per GPU-hour;
null where Secure Cloud does not offer it). The key is sent as a bearer token, never in the
URL. RunPod's price does not differ by data center.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from app.catalog.apis.base import Fetch, LiveApi, LiveRows, Row, fetched_note, known_instances
from app.catalog.refresh import SourceError
from app.catalog.sources.skypilot import LoadReport
from app.settings import Settings

ENDPOINT = "https://api.runpod.io/graphql"
DOCS = "https://docs.runpod.io/references/gpu-types"
QUERY = "query GpuTypes { gpuTypes { id displayName memoryInGb securePrice secureSpotPrice } }"
# RunPod display names that SkyPilot's RunPod catalog names otherwise (its instance names).
_RENAMED = {"A100-PCIe": "A100-80GB", "A100-SXM": "A100-80GB-SXM", "H100-PCIe": "H100"}


def accelerator_name(display_name: str) -> str:
    """SkyPilot's RunPod accelerator name for a display name ("RTX 4090" -> "RTX4090",
    "RTX PRO 6000" -> "RTXPRO6000", "H100 SXM" -> "H100-SXM", "A100 PCIe" -> "A100-80GB")."""
    name = display_name.replace("RTX PRO ", "RTXPRO").replace("RTX ", "RTX").replace(" ", "-")
    return _RENAMED.get(name, name)


def _per_gpu(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None
    return float(value)


def read(fetch: Fetch, settings: Settings, today: dt.date) -> LiveRows:
    """Every known RunPod instance type's price: the GPU type's price x its GPU count."""
    key = settings.runpod_api_key.get_secret_value() if settings.runpod_api_key else ""
    if not key:
        raise SourceError("RunPod's API needs a key: set GPUCOST_RUNPOD_API_KEY")
    answer = fetch.json(
        "POST", ENDPOINT, json={"query": QUERY}, headers={"Authorization": f"Bearer {key}"}
    )
    types = answer.get("data", {}).get("gpuTypes") if isinstance(answer, dict) else None
    if not isinstance(types, list):
        errors = answer.get("errors") if isinstance(answer, dict) else None
        raise SourceError(f"{ENDPOINT}: no gpuTypes in the answer ({str(errors)[:200]})")
    by_name: dict[str, dict[str, Any]] = {}
    report = LoadReport({})
    for t in types:
        if isinstance(t, dict) and isinstance(t.get("displayName"), str):
            by_name[accelerator_name(t["displayName"])] = t
        else:
            report.skip("runpod api: a GPU type without a display name")
    rows: list[tuple[int, Row]] = []
    for itype, inst in sorted(known_instances("runpod").items()):
        found = by_name.get(str(inst.columns["AcceleratorName"]))
        price = _per_gpu(found.get("securePrice")) if found else None
        if price is None:
            report.skip("runpod api: an instance type with no Secure Cloud price")
            continue
        count = float(inst.columns["AcceleratorCount"])
        spot = _per_gpu(found.get("secureSpotPrice")) if found else None
        for region in sorted(inst.regions):
            row = {"InstanceType": itype, "Region": region, **inst.columns}
            row |= {"Price": round(price * count, 4), "AvailabilityZone": ""}
            row["SpotPrice"] = round(spot * count, 4) if spot else ""
            rows.append((len(rows) + 1, row))
    note = fetched_note("RunPod GraphQL API, Secure Cloud", ENDPOINT, today)
    return LiveRows(rows, today, note, ENDPOINT, report.skipped)


API = LiveApi("runpod", "RunPod GraphQL API", DOCS, "GPUCOST_RUNPOD_API_KEY", read)
