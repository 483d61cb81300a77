"""A bound on heavy work per process: charts, reports, sweeps, cash flows and fleet plans run
in the thread pool through :class:`RenderGate` (and chat questions, dated views, compares and
import parsing through a second one, :data:`CPU`), which lets ``max_running`` run and
``max_waiting`` wait; a request beyond that is refused at once with 503 and ``Retry-After``
(:class:`Busy`) instead of queueing without limit, so a flood of charts cannot starve health
checks and cheap calculations of the event loop and the thread pool."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

import anyio.to_thread

from app.errors import DomainError

T = TypeVar("T")


class Busy(DomainError):
    """Too many charts, reports, sweeps or plans are running and waiting in this worker."""

    status, slug, title = 503, "busy", "Busy"


class RenderGate:
    """At most ``max_running`` calls run at once and ``max_waiting`` wait for a turn."""

    def __init__(
        self,
        max_running: int,
        max_waiting: int,
        retry_after_s: int = 1,
        what: str = "charts, reports, sweeps or plans",
    ) -> None:
        self.max_running, self.max_waiting = max_running, max_waiting
        self.retry_after_s = retry_after_s
        self.what = what
        # Thread primitives, not asyncio ones: a gate outlives any one event loop (tests
        # run several), and a waiting call waits in its pool thread, not on the loop.
        self._slots = threading.Semaphore(max_running)
        self._lock = threading.Lock()
        self._admitted = 0

    @property
    def admitted(self) -> int:
        """Calls running or waiting now."""
        return self._admitted

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the thread pool when a slot is free; :class:`Busy` (503) at once
        when ``max_running + max_waiting`` calls are already admitted."""
        with self._lock:
            busy = self._admitted >= self.max_running + self.max_waiting
            if not busy:
                self._admitted += 1
        if busy:
            raise Busy(
                f"{self.max_running + self.max_waiting} {self.what} are "
                f"running or waiting in this worker; retry in {self.retry_after_s} s",
                retry_after_s=self.retry_after_s,
            )
        try:
            return await anyio.to_thread.run_sync(self._call, fn, *args)
        finally:
            with self._lock:
                self._admitted -= 1

    def _call(self, fn: Callable[..., T], *args: Any) -> T:
        with self._slots:
            return fn(*args)


_gates: dict[tuple[str, int, int], RenderGate] = {}
_gates_lock = threading.Lock()
# Per-request CPU work that is not a chart: a chat question, a dated catalog view, a compare
# over the whole catalog, an import file's parsing. Each takes milliseconds to
# tens of them, pure Python: in the thread pool, a bounded number at once, so a flood of them
# waits there (or gets 503) while the event loop keeps answering.
CPU = "questions, dated views, compares or imports"
# Each of those takes ~2-50 ms: a longer queue than the charts' still waits under a second.
CPU_WAITING_FACTOR = 4


def gate(max_running: int, max_waiting: int, what: str | None = None) -> RenderGate:
    """The process's gate for these bounds (the settings' ``render_max_running`` and
    ``render_max_waiting``), one per kind of work ``what`` (default: charts, reports,
    sweeps and plans; :data:`CPU` for the cheaper CPU work, one at a time with a queue
    :data:`CPU_WAITING_FACTOR` times as long as the other's running and waiting together)."""
    with _gates_lock:
        key = (what or "", max_running, max_waiting)
        if key not in _gates:
            if what == CPU:
                # Pure Python that holds the interpreter lock: a second thread would add no
                # throughput, only a second contender for the lock the event loop needs.
                _gates[key] = RenderGate(1, (max_running + max_waiting) * CPU_WAITING_FACTOR)
            else:
                _gates[key] = RenderGate(max_running, max_waiting)
            if what:
                _gates[key].what = what
        return _gates[key]
