"""The HTTP protocol ``gpucost serve`` runs: uvicorn's httptools protocol with a bound on the
request head.

httptools (llhttp) keeps reading a request's head, and buffers each header's value whole,
however large it is: left alone, it accepts an 8 MB header and hands it to the app. Here
the bytes read while a head is incomplete are counted, and once they pass the settings'
``max_header_bytes`` the connection gets 431 problem+json and is closed, so the worker never
holds more than that limit plus one read (64 KiB) of any head. The edge
(:mod:`app.api.edge`) checks the parsed headers' size again, for servers run without this
protocol (tests, ``uvicorn app.main:app``).

A head must also arrive in time: from a connection's start (or a kept-alive connection's next
request's first byte) to its head's end at most the settings' ``request_head_timeout_s``,
else 408 problem+json and the connection is closed. uvicorn times out only a kept-alive
connection idle after a response; a connection that sends nothing, or a head a byte at a
time (slowloris), was held for ever.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.settings import get_settings

PROBLEM_408 = {
    "type": "https://gpucost.dev/problems/request-timeout",
    "title": "Request timeout",
    "status": 408,
}
PROBLEM_431 = {
    "type": "https://gpucost.dev/problems/headers-too-large",
    "title": "Request header fields too large",
    "status": 431,
}


def head_too_large(limit: int) -> dict[str, Any]:
    """The 431 problem document for a head over ``limit`` bytes."""
    return {**PROBLEM_431, "detail": f"the request's headers exceed {limit} bytes"}


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` that answers 431 and closes the connection once a request's
    head passes ``max_header_bytes`` (read from the settings when the protocol is made)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        settings = get_settings()
        self.max_head_bytes = settings.max_header_bytes
        self.head_timeout_s = settings.request_head_timeout_s
        self._in_head = True
        self._head_bytes = 0
        self._head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._start_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True
        if self._head_timer is None:  # a kept-alive connection's next request
            self._start_head_timer()

    def on_headers_complete(self) -> None:
        self._in_head, self._head_bytes = False, 0
        self._stop_head_timer()
        super().on_headers_complete()

    def _start_head_timer(self) -> None:
        self._head_timer = self.loop.call_later(self.head_timeout_s, self._head_timed_out)

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        """The head did not arrive in time: 408 and close (nothing was handed to the app)."""
        self._head_timer = None
        if self._in_head and not self.transport.is_closing():
            detail = f"the request's head did not arrive within {self.head_timeout_s:g} s"
            self._close_with(b"408 Request Timeout", {**PROBLEM_408, "detail": detail})

    def data_received(self, data: bytes) -> None:
        if self._in_head:
            self._head_bytes += len(data)
        super().data_received(data)
        # Still inside a head after this read, and past the limit: every byte counted since
        # the head began belongs to it.
        if self._in_head and self._head_bytes > self.max_head_bytes:
            self._refuse()

    def _refuse(self) -> None:
        self._close_with(
            b"431 Request Header Fields Too Large", head_too_large(self.max_head_bytes)
        )

    def _close_with(self, status: bytes, problem: dict[str, Any]) -> None:
        """Answer ``problem`` (problem+json) with ``status`` and close the connection."""
        body = json.dumps(problem).encode()
        self.transport.write(
            b"HTTP/1.1 " + status + b"\r\n"
            b"content-type: application/problem+json\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n"
            b"connection: close\r\n\r\n" + body
        )
        self._in_head = False
        self._stop_head_timer()
        self.transport.close()
