"""The ``/mcp`` endpoint (:class:`McpEndpoint`): the gpucost MCP server
(:mod:`app.integrations.mcp_server`), with the ``mcp`` SDK imported on the first MCP request
rather than when the worker starts.

Why: importing the SDK costs a worker resident memory and start-up time (measured with
``python -X importtime`` and ``/proc/self/status``; figures in docs/operations.md), and
most workers never answer an MCP call. A
worker that does pays both once, at its first call: the import runs in a thread, off the
event loop, and the SDK's session manager then starts as a task of the application's
lifespan (:meth:`McpEndpoint.running`) and stops with it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import anyio
import anyio.abc

MCP_PATH = "/mcp"

_UNAVAILABLE = json.dumps(
    {
        "type": "about:blank",
        "title": "Service Unavailable",
        "status": 503,
        "detail": "the MCP server is starting or stopping; retry",
    }
).encode()


def _sdk() -> ModuleType:
    """:mod:`app.integrations.mcp_server`, imported (with the SDK) at the first call."""
    from app.integrations import mcp_server

    return mcp_server


class McpEndpoint:
    """The ``/mcp`` ASGI endpoint: an MCP server whose tools call ``app`` (the whole gpucost
    application, in process). Open :meth:`running` in the app's lifespan; the server and its
    session manager start on the first request while it is open. Outside it (before start-up,
    after shut-down) a request is answered 503, problem+json."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._server: Any = None
        self.manager: Any = None  # the SDK's StreamableHTTPSessionManager, while serving
        self._tasks: anyio.abc.TaskGroup | None = None
        self._stop = anyio.Event()
        self._lock = anyio.Lock()

    @property
    def server(self) -> Any:
        """The MCP server (``mcp.server.Server``), built (and the SDK imported) on first use."""
        if self._server is None:
            self._server = _sdk().build_server(self.app)
        return self._server

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serve MCP while the context is open; the session manager, once a request started
        it, is stopped when the context closes."""
        self._stop, self._lock = anyio.Event(), anyio.Lock()
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            try:
                yield
            finally:
                self._tasks = None
                self._stop.set()

    async def _serve(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        """The session manager's task: runs it until :meth:`running` closes."""
        manager = _sdk().session_manager(self.server)
        async with manager.run():
            self.manager = manager
            task_status.started()
            try:
                await self._stop.wait()
            finally:
                self.manager = None

    async def _started(self) -> Any:
        """The running session manager, started by the first caller (the SDK imported in a
        thread); None outside :meth:`running`."""
        if self.manager is None and self._tasks is not None:
            async with self._lock:
                if self.manager is None and self._tasks is not None:
                    await anyio.to_thread.run_sync(_sdk)
                    await self._tasks.start(self._serve)
        return self.manager

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        manager = await self._started()
        if manager is None:
            await send(
                {
                    "type": "http.response.start",
                    "status": 503,
                    "headers": [(b"content-type", b"application/problem+json")],
                }
            )
            await send({"type": "http.response.body", "body": _UNAVAILABLE})
            return
        await manager.handle_request(scope, receive, send)
