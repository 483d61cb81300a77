"""The HTTP protocol ``gpucost serve`` runs: uvicorn's httptools protocol with a bound on the
request head.

httptools (llhttp) keeps reading a request's head, and buffers each header's value whole,
however large it is: before issue 36 an 8 MB header was accepted and handed to the app. Here
the bytes read while a head is incomplete are counted, and once they pass the settings'
``max_header_bytes`` the connection gets 431 problem+json and is closed, so the worker never
holds more than that limit plus one read (64 KiB) of any head. The edge
(:mod:`app.api.edge`) checks the parsed headers' size again, for servers run without this
protocol (tests, ``uvicorn app.main:app``).
"""

from __future__ import annotations

import json
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.settings import get_settings

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
        self.max_head_bytes = get_settings().max_header_bytes
        self._in_head = True
        self._head_bytes = 0

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True

    def on_headers_complete(self) -> None:
        self._in_head, self._head_bytes = False, 0
        super().on_headers_complete()

    def data_received(self, data: bytes) -> None:
        if self._in_head:
            self._head_bytes += len(data)
        super().data_received(data)
        # Still inside a head after this read, and past the limit: every byte counted since
        # the head began belongs to it.
        if self._in_head and self._head_bytes > self.max_head_bytes:
            self._refuse()

    def _refuse(self) -> None:
        body = json.dumps(head_too_large(self.max_head_bytes)).encode()
        self.transport.write(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: application/problem+json\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n"
            b"connection: close\r\n\r\n" + body
        )
        self._in_head = False
        self.transport.close()
