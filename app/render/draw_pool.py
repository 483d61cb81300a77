"""Charts are drawn in separate processes, so drawing never holds the worker's GIL.

Why: with charts drawn in the worker's own threads, a chart flood holds up ``/healthz``
(``make bench-flood``; figures in docs/operations.md): matplotlib holds the GIL while it
draws, and the event loop waits for it. In a process pool, the worker only waits on a pipe.

The pool (:class:`DrawPool`) has ``render_max_running`` processes (the render gate lets no
more charts through at once, so nothing queues inside it). Its processes:

* are started with ``spawn`` (no ``fork`` of a threaded server), lazily, on the first chart
  or at start-up's warm-up, and import matplotlib once, when they start;
* run at a lower CPU priority (``nice`` +10), so on a busy machine the workers' cheap
  answers and health checks come first;
* exit within half a second of their parent's death (even a ``kill -9``), rather than linger
  as orphans: a watchdog thread in each compares its parent's pid.

A drawing that takes longer than ``render_timeout_s`` or a process that dies is a 503
(:class:`app.render.gate.Busy`), and a dead pool is replaced on the next chart. At exit,
:mod:`concurrent.futures` shuts the pool down.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import resource
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from app.render import drawing as charts
from app.render.gate import Busy

log = logging.getLogger("gpucost")
NICENESS = 10
T = TypeVar("T")
# A plan's wait, in multiples of a chart's (``render_timeout_s``): its solver alone may take
# 2 s of CPU (app/costing/plan.py), and a drawing process runs at a lower priority, so on a
# busy machine it gets a fraction of a core (plans' wall time under load: see
# docs/operations.md).
COMPUTE_TIMEOUT_FACTOR = 3
# Charts or plans a drawing process runs before it is replaced by a fresh one.
TASKS_PER_PROCESS = 50
# The data memory (heap and anonymous mappings: RLIMIT_DATA) a drawing process may add to
# what it holds once its imports are done, MB: past it an allocation fails (MemoryError, a
# 503) rather than growing the machine's memory. Its catalog copy is ~60 MB and the largest
# plan adds ~110 MB: 1 GB leaves room for the allocator's and BLAS's reserved
# arenas (data size, not resident memory).
MEMORY_CAP_MB = 1024


def _watch_parent(parent_pid: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent_pid:
            os._exit(0)  # the parent died (its children are re-parented): stop now


def _data_bytes() -> int:
    """This process's data size now (``VmData``: heap and private anonymous mappings)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    raise OSError("no VmData")


def _start_child(parent_pid: int) -> None:
    """Initializer of each drawing process: it draws itself, whatever importing the parent's
    main module set up; its data memory is capped (:data:`MEMORY_CAP_MB`)."""
    charts.offload_to(None)
    with contextlib.suppress(OSError, ValueError):  # a platform without RLIMIT_DATA
        cap = _data_bytes() + MEMORY_CAP_MB * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))
    with contextlib.suppress(OSError):  # not allowed here: draw at normal priority
        os.nice(NICENESS)
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    charts.warm()


class DrawPool:
    """``processes`` drawing processes; :meth:`draw` runs a chart function in one of them and
    waits at most ``timeout_s`` (blocking: call it from a worker thread, as the render gate
    does)."""

    def __init__(self, processes: int, timeout_s: float) -> None:
        self.processes, self.timeout_s = processes, timeout_s
        self._executor: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    max_workers=self.processes,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_child,
                    initargs=(os.getpid(),),
                    # Recycled: a process is replaced after this many charts or plans, so
                    # what a large plan's solver left in its heap does not stay.
                    max_tasks_per_child=TASKS_PER_PROCESS,
                )
            return self._executor

    def warm_up(self) -> list[Future[None]]:
        """Start every process now (without waiting), so the first chart does not pay for
        starting Python and importing matplotlib."""
        pool = self._pool()
        return [pool.submit(charts.warm) for _ in range(self.processes)]

    def draw(self, fn: Callable[..., charts.Chart], kwargs: dict[str, Any]) -> charts.Chart:
        """``fn(**kwargs)`` in a drawing process. Busy (503) when it takes longer than
        ``timeout_s`` or its process dies (the pool is then replaced)."""
        pool = self._pool()
        try:
            return pool.submit(fn, **kwargs).result(timeout=self.timeout_s)
        except FutureTimeout:
            raise Busy(  # a starved or stuck process: give it a few drawings' time (~0.5 s each)
                f"the chart took longer than {self.timeout_s:g} s to draw; retry later",
                retry_after_s=5,
            ) from None
        except BrokenProcessPool:
            raise self._died(pool) from None

    def compute(self, fn: Callable[..., T], *args: Any, timeout_s: float | None = None) -> T:
        """``fn(*args)`` in a drawing process (a plan: :mod:`app.render.apart`), as
        :meth:`draw` runs a chart: Busy (503) past ``timeout_s`` (default: the pool's, times
        :data:`COMPUTE_TIMEOUT_FACTOR`), when its process dies, or when it passes the
        processes' memory cap (``MemoryError``)."""
        pool = self._pool()
        timeout_s = timeout_s or self.timeout_s * COMPUTE_TIMEOUT_FACTOR
        try:
            return pool.submit(fn, *args).result(timeout=timeout_s)
        except FutureTimeout:
            raise Busy(
                f"the computation took longer than {timeout_s:g} s; retry later",
                retry_after_s=5,
            ) from None
        except MemoryError:
            raise Busy(
                f"the computation needed more than the {MEMORY_CAP_MB} MB a drawing process "
                "may use; retry with a smaller request",
                retry_after_s=5,
            ) from None
        except BrokenProcessPool:
            raise self._died(pool) from None

    def _died(self, pool: ProcessPoolExecutor) -> Busy:
        """A process of ``pool`` died: the pool is dropped (the next call starts a new one at
        once) and the Busy (503) to raise, retry in a second."""
        log.error("a drawing process died; starting a new pool")
        self._discard(pool)
        return Busy("a drawing process died; retry", retry_after_s=1)

    def _discard(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._executor is pool:
                self._executor = None
        pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the processes (waits for the drawings in flight)."""
        with self._lock:
            pool, self._executor = self._executor, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def pids(self) -> list[int]:
        """The drawing processes' pids (for benchmarks and tests)."""
        pool = self._executor
        return list(getattr(pool, "_processes", None) or {}) if pool is not None else []


_pool: DrawPool | None = None


def install(processes: int, timeout_s: float) -> DrawPool | None:
    """Draw every chart of this process in a pool of ``processes`` (made once; later calls
    return it). Not in a process that multiprocessing started (a drawing process imports
    the app too): None there, so a drawing never starts a pool of its own."""
    global _pool
    if multiprocessing.parent_process() is not None:
        return None
    if _pool is None:
        _pool = DrawPool(processes, timeout_s)
        charts.offload_to(_pool.draw)
    return _pool


def installed() -> DrawPool | None:
    """The process's pool, if :func:`install` ran."""
    return _pool
