"""The usage step of a chargeback: a Slurm accounting export read into GPU jobs.

The export is what ``sacct -X --allusers --parsable2 -S <start> -E <end>
--format=JobID,User,Account,Partition,AllocTRES,Elapsed,Start,End,State`` prints (Slurm's
sacct manual page: ``--parsable2`` separates fields with ``|`` and ends no line with one;
``-X`` prints allocations, not their steps). Columns are found by the header, in any order
(``Elapsed`` and ``State`` are not needed); an export printed with ``-n`` (no header) is read
in the order above. Rules:

- step lines (``123.batch``, ``123.extern``, ``123.0``) are not jobs, even if present;
- GPUs come from AllocTRES: ``gres/gpu=N``, else the sum of typed ``gres/gpu:<type>=N``
  (Slurm lists both for a typed request: counted once); a job with none is no GPU job;
- times are the cluster's local time, in the time zone given; ``End=Unknown`` (still
  running) is None, which counts to the period's end; ``Start=Unknown``/``None`` (never
  started) used no GPU time;
- a line that cannot be read is reported with its number and why, and the rest is counted.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from app.costing.chargeback import GpuJob
from app.costing.errors import InvalidInput

# sacct --format as the issue and docs/operations.md give it: the order of a headerless export.
SACCT_FORMAT = ("JobID", "User", "Account", "Partition", "AllocTRES", "Elapsed", "Start", "End", "State")  # fmt: skip
NEEDED = ("JobID", "User", "Account", "Partition", "AllocTRES", "Start", "End")
NOT_A_TIME = frozenset({"Unknown", "None", ""})
STEP_ID = re.compile(r"\.(batch|extern|interactive|\d+)$")
GPU_TRES = re.compile(r"^gres/gpu(?::[^=]+)?=(\d+)$")


@dataclass(frozen=True)
class Unread:
    """A line that could not be read: its number (1 = the first line) and why."""

    line: int
    reason: str


@dataclass
class ReadExport:
    """What an export held: the GPU jobs, the lines that could not be read, and how many
    lines were steps, jobs without GPUs and jobs that never started."""

    jobs: list[GpuJob] = field(default_factory=list)
    unread: list[Unread] = field(default_factory=list)
    steps: int = 0
    without_gpus: int = 0
    not_started: int = 0


def read_sacct(text: str, zone: ZoneInfo) -> ReadExport:
    """The jobs of a ``sacct --parsable2`` export (see the module) with times in ``zone``.
    An export whose first line names no ``JobID`` is read as headerless. Raises
    :class:`InvalidInput` (422, field ``usage.text``) for a header that lacks a needed
    column."""
    lines = text.splitlines() or [""]
    first = lines[0].strip().split("|")
    has_header = "JobID" in first
    columns = first if has_header else list(SACCT_FORMAT)
    missing = [c for c in NEEDED if c not in columns]
    if missing:
        raise InvalidInput(
            f"the sacct header lacks {', '.join(missing)}; export with --format="
            f"{','.join(SACCT_FORMAT)}",
            field="usage.text",
        )
    at = {name: columns.index(name) for name in NEEDED}
    out = ReadExport()
    for number, raw in enumerate(lines, start=1):
        if (has_header and number == 1) or not raw.strip():
            continue
        cells = raw.rstrip("\r\n").split("|")
        if len(cells) != len(columns):
            out.unread.append(Unread(number, f"{len(cells)} fields, the header has {len(columns)}"))
            continue
        _read_line(out, number, {name: cells[i].strip() for name, i in at.items()}, zone)
    return out


def _read_line(out: ReadExport, number: int, cell: dict[str, str], zone: ZoneInfo) -> None:
    """One job line into ``out``: a GPU job, a step, a job without GPUs, one never started,
    or a line it could not read."""
    if STEP_ID.search(cell["JobID"]):
        out.steps += 1
        return
    try:
        gpus = gpus_of(cell["AllocTRES"])
        if gpus == 0:
            out.without_gpus += 1
            return
        start = _time(cell["Start"], zone)
        if start is None:
            out.not_started += 1
            return
        end = _time(cell["End"], zone)
    except ValueError as exc:
        out.unread.append(Unread(number, str(exc)))
        return
    if end is not None and end < start:
        out.unread.append(Unread(number, f"End {cell['End']} is before Start {cell['Start']}"))
        return
    for name in ("JobID", "Account", "Partition"):
        if not cell[name]:
            out.unread.append(Unread(number, f"no {name}"))
            return
    user, account = cell["User"] or "(no user)", cell["Account"]
    out.jobs.append(
        GpuJob(cell["JobID"], user, account, cell["Partition"], gpus, start, end, number)
    )


def gpus_of(alloc_tres: str) -> int:
    """GPUs in an AllocTRES value (``billing=8,cpu=8,gres/gpu:a100=2,gres/gpu=2,mem=64G,
    node=1``: 2): ``gres/gpu=N`` when listed, else the typed counts summed; 0 for none.
    Raises ValueError for a GPU count that is not a whole number."""
    untyped, typed = None, 0
    for item in alloc_tres.split(","):
        item = item.strip()
        if not item.startswith("gres/gpu"):
            continue
        found = GPU_TRES.match(item)
        if found is None:
            raise ValueError(f"AllocTRES {item!r} is no GPU count")
        if "=" in item and item.split("=", 1)[0] == "gres/gpu":
            untyped = int(found.group(1))
        else:
            typed += int(found.group(1))
    return untyped if untyped is not None else typed


def _time(value: str, zone: ZoneInfo) -> dt.datetime | None:
    """A sacct time (``2026-10-03T09:12:44``, the cluster's local time in ``zone``) as UTC;
    None for ``Unknown``/``None``. Raises ValueError for anything else."""
    if value in NOT_A_TIME:
        return None
    try:
        local = dt.datetime.fromisoformat(value).replace(tzinfo=zone)
    except ValueError:
        raise ValueError(f"{value!r} is no sacct time (YYYY-MM-DDTHH:MM:SS)") from None
    # In UTC: Python subtracts two times of one zone by their wall clocks, which would
    # give the night daylight saving time ends 8 hours instead of 9.
    return local.astimezone(dt.UTC)
