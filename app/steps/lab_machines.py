"""The lab's machines by Slurm partition, configured server-side (setting
``machines_file``): what a chargeback prices when its request sends no ``machines``."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.costing.sourced import Assumed, Sourced
from app.errors import InvalidRequest, Misconfigured
from app.models.chargeback import ClusterMachine
from app.settings import Settings


class MachinesFile(BaseModel):
    """The file's shape: ``{"machines": [...]}``, each entry as a chargeback request's."""

    model_config = ConfigDict(extra="forbid")

    machines: list[ClusterMachine] = Field(min_length=1, max_length=50)


_lock = threading.Lock()
_read: dict[Path, tuple[int, tuple[ClusterMachine, ...]]] = {}


def configured_machines(settings: Settings) -> tuple[ClusterMachine, ...]:
    """The machines of the file ``settings.machines_file`` names (empty when none is set),
    read again when the file changes. Raises :class:`~app.errors.Misconfigured` (503) for a
    file that is missing, unreadable or invalid, naming the setting and the reason."""
    path = settings.machines_file
    if path is None:
        return ()
    try:
        stamp = path.stat().st_mtime_ns
        with _lock:
            known = _read.get(path)
        if known is not None and known[0] == stamp:
            return known[1]
        parsed = MachinesFile.model_validate_json(path.read_bytes())
    except (OSError, ValidationError) as exc:
        reason = str(exc).splitlines()[0] if isinstance(exc, OSError) else _first(exc)
        raise Misconfigured(f"GPUCOST_MACHINES_FILE {str(path)!r}: {reason}") from None
    machines = tuple(parsed.machines)
    partitions = [m.partition for m in machines]
    if len(set(partitions)) != len(partitions):
        raise Misconfigured(f"GPUCOST_MACHINES_FILE {str(path)!r}: a partition is listed twice")
    with _lock:
        _read[path] = (stamp, machines)
    return machines


def _first(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    return f"{where}: {error['msg']}" if where else error["msg"]


def lab_machines(
    given: Sequence[ClusterMachine] | None, settings: Settings
) -> Sourced[Sequence[ClusterMachine]]:
    """The request's machines, else the server's (:func:`configured_machines`), stated.
    Raises :class:`~app.errors.InvalidRequest` (422) when neither has any, and what
    :func:`configured_machines` raises."""
    if given:
        return Sourced(given, (Assumed("machines", [m.partition for m in given], "given"),))
    configured = configured_machines(settings)
    if not configured:
        raise InvalidRequest(
            "no machines: send `machines` (one entry per partition), or set "
            "GPUCOST_MACHINES_FILE on the server",
            field="machines",
        )
    where = f"the server's machines file (setting GPUCOST_MACHINES_FILE, {settings.machines_file})"
    return Sourced(configured, (Assumed("machines", [m.partition for m in configured], where),))
