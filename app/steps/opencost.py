"""The usage step of a chargeback from Kubernetes: OpenCost's allocation API answer read into
GPU jobs.

The answer is what ``GET /allocation/compute?window=<start>,<end>&aggregate=pod&accumulate=true``
(or any aggregation that keeps namespaces apart) returns: ``{"code": 200, "data": [{<name>:
<allocation>, ...}, ...]}``, one set per step of the window. Each allocation with GPU time
becomes one job:

- its account is its namespace (``properties.namespace``), its user the value of a pod label
  (``properties.labels[<user_label>]``; the label's name as given or in the Prometheus form
  OpenCost keeps, ``.``, ``/`` and ``-`` as ``_``), else ``(no user)``;
- its partition is its cluster (``properties.cluster``): a cluster's GPU nodes are one
  machine entry, as a Slurm partition's are;
- its GPUs are ``gpuHours`` over the hours from ``start`` to ``end`` (an average, so a pod
  that held 2 GPUs for half its life counts 1); its times are RFC 3339 (UTC when they say so);
- OpenCost's own entries (``__idle__``, ``__unallocated__``, ``__unmounted__``) are not jobs;
- an allocation that cannot be read is reported with its position (1 = the first) and why,
  and the rest is counted.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from app.costing.chargeback import SECONDS_PER_HOUR, GpuJob
from app.costing.errors import InvalidInput
from app.steps.sacct import ReadExport, Unread

OWN_ENTRIES = frozenset({"__idle__", "__unallocated__", "__unmounted__"})
_NOT_PROMETHEUS = re.compile(r"[^A-Za-z0-9_]")


def read_opencost(text: str, user_label: str) -> ReadExport:
    """The GPU jobs of an OpenCost allocation answer (see the module). Raises
    :class:`InvalidInput` (422, field ``usage.text``) for text that is not such an answer."""
    try:
        answer = json.loads(text)
    except ValueError as exc:
        raise InvalidInput(f"not JSON: {exc}", field="usage.text") from None
    sets = answer.get("data") if isinstance(answer, dict) else answer
    if isinstance(sets, dict):
        sets = [sets]
    if not isinstance(sets, list) or not all(isinstance(s, dict | type(None)) for s in sets):
        raise InvalidInput(
            'not an OpenCost allocation answer: expected {"data": [{<name>: <allocation>}]}',
            field="usage.text",
        )
    out = ReadExport()
    position = 0
    for step in sets:
        for name, alloc in (step or {}).items():
            position += 1
            if name in OWN_ENTRIES:
                out.steps += 1
                continue
            try:
                _read_allocation(out, position, str(name), alloc, user_label)
            except (TypeError, ValueError, KeyError) as exc:
                out.unread.append(Unread(position, f"allocation {name!r}: {exc}"))
    return out


def _read_allocation(
    out: ReadExport, position: int, name: str, alloc: Any, user_label: str
) -> None:
    """One allocation into ``out``: a GPU job, one without GPU time, or a ValueError."""
    if not isinstance(alloc, dict):
        raise ValueError("is not an object")
    gpu_hours = float(alloc.get("gpuHours") or 0.0)
    if gpu_hours != gpu_hours or gpu_hours < 0:  # NaN or negative
        raise ValueError(f"gpuHours {alloc.get('gpuHours')!r} is no GPU time")
    if gpu_hours == 0:
        out.without_gpus += 1
        return
    start, end = _time(alloc["start"]), _time(alloc["end"])
    if end <= start:
        raise ValueError(f"end {alloc['end']} is not after start {alloc['start']}")
    props = alloc.get("properties") or {}
    account, cluster = props.get("namespace"), props.get("cluster")
    if not account or not cluster:
        raise ValueError("no properties.namespace or properties.cluster")
    hours = (end - start).total_seconds() / SECONDS_PER_HOUR
    user = _label(props.get("labels") or {}, user_label) or "(no user)"
    gpus = gpu_hours / hours
    out.jobs.append(GpuJob(name, user, str(account), str(cluster), gpus, start, end, position))


def _label(labels: dict[str, Any], name: str) -> str | None:
    """A pod label's value by its name as given or in Prometheus form (``team.example/user``
    -> ``team_example_user``), with OpenCost's ``label_`` prefix or without."""
    plain = _NOT_PROMETHEUS.sub("_", name)
    for key in (name, plain, f"label_{plain}"):
        value = labels.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _time(value: Any) -> dt.datetime:
    """An RFC 3339 time as UTC (a time without an offset is taken as UTC). Raises
    ValueError."""
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is no RFC 3339 time")
    try:
        moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{value!r} is no RFC 3339 time") from None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC)
