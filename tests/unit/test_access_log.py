"""The access line observability.record_request writes itself (no LogRecord) is the line the
handler's formatter writes for the same record, in JSON and text, to a file descriptor or a
stream without one; with any other logging setup the standard call is made. In an event
loop the lines are written at the end of its turn, in order, in whole-line writes."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import re
import time

import pytest

from app import observability as obs

FIELDS = ("POST", "/v1/break-even", 200, 0.0012345)


def _formatted(handler: logging.Handler) -> str:
    """The line the handler's own formatter writes for the access record of FIELDS."""
    method, route, status, elapsed_s = FIELDS
    record = logging.getLogger("gpucost.access").makeRecord(
        "gpucost.access",
        logging.INFO,
        __file__,
        0,
        "%s %s %s %.1f ms",
        (method, route, status, elapsed_s * 1000),
        None,
        extra={
            "method": method,
            "route": route,
            "status": status,
            "duration_ms": round(elapsed_s * 1000, 3),
            "request_id": "rid-1",
        },
    )
    return handler.format(record)


@pytest.fixture
def restore_logging():
    obs._REQUESTS.handle_queued()  # nothing another test queued is written into this one's log
    yield
    obs.configure_logging("text")


@pytest.mark.parametrize("fmt", ["json", "text"])
@pytest.mark.parametrize("to_file", [True, False])
def test_the_fast_line_is_the_formatters_line(fmt, to_file, tmp_path, restore_logging, monkeypatch):
    obs.configure_logging(fmt)
    monkeypatch.setattr(logging.getLogger("gpucost.access"), "info", None)  # not called
    handler = logging.getLogger("gpucost").handlers[0]
    out = (tmp_path / "log").open("w") if to_file else io.StringIO()
    handler.setStream(out)
    token = obs.request_id.set("rid-1")
    try:
        obs.record_request(*FIELDS)
    finally:
        obs.request_id.reset(token)
    written = (tmp_path / "log").read_text() if to_file else out.getvalue()
    expected = _formatted(handler)
    if fmt == "json":
        got, want = json.loads(written), json.loads(expected)
        assert list(got) == list(want)  # same fields, same order
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}", got.pop("time"))
        want.pop("time")
        assert got == want
    else:
        stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} "
        assert re.fullmatch(stamp + re.escape(expected.split(" ", 2)[2]) + "\n", written)


def test_another_handler_gets_standard_records(restore_logging):
    obs.configure_logging("json")
    records: list[logging.LogRecord] = []
    token = obs.request_id.set("rid-2")

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = logging.getLogger("gpucost")
    logger.handlers[0].setStream(io.StringIO())
    extra = Keep()
    logger.addHandler(extra)
    try:
        obs.record_request(*FIELDS)
    finally:
        logger.removeHandler(extra)
        obs.request_id.reset(token)
    assert [r.getMessage() for r in records] == ["POST /v1/break-even 200 1.2 ms"]
    assert records[0].__dict__["route"] == "/v1/break-even"
    assert records[0].__dict__["request_id"] == "rid-2"  # the request's, not the writer's


def _file_handler(tmp_path):
    obs.configure_logging("json")
    handler = logging.getLogger("gpucost").handlers[0]
    handler.setStream((tmp_path / "log").open("w"))
    return handler, tmp_path / "log"


def test_in_the_event_loop_lines_are_written_at_the_end_of_its_turn(tmp_path, restore_logging):
    handler, path = _file_handler(tmp_path)

    async def scenario() -> tuple[str, list[str]]:
        for status in (200, 201, 202):
            obs.record_request("GET", "/healthz", status, 0.001)
        before = path.read_text()
        logging.getLogger("gpucost.catalog").warning("after the three")
        logging.getLogger("gpucost.catalog").warning("and then this")
        await asyncio.sleep(0)
        return before, path.read_text().splitlines()

    before, lines = asyncio.run(scenario())
    assert before == ""  # queued, not yet written
    records = [json.loads(line) for line in lines]
    assert [r.get("status") for r in records[:3]] == [200, 201, 202]  # in order, first
    assert [r["message"] for r in records[3:]] == ["after the three", "and then this"]


def test_queued_lines_go_out_in_whole_lines_within_a_pipes_atomic_write(
    tmp_path, restore_logging, monkeypatch
):
    handler, path = _file_handler(tmp_path)
    writes: list[bytes] = []
    real_write = os.write

    def record(fd: int, data: bytes) -> int:
        if fd == handler.stream.fileno():  # not another thread's pipe
            writes.append(bytes(data))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", record)

    async def scenario() -> None:
        for i in range(100):
            obs.record_request("POST", f"/v1/route-{i}", 200, 0.001)
        await asyncio.sleep(0)

    asyncio.run(scenario())
    assert len(writes) > 1 and all(len(w) <= obs.WRITE_CHUNK and w.endswith(b"\n") for w in writes)
    routes = [json.loads(line)["route"] for line in path.read_text().splitlines()]
    assert routes == [f"/v1/route-{i}" for i in range(100)]


def test_lines_queued_on_a_loop_that_ended_are_written_by_the_next_one(tmp_path, restore_logging):
    handler, path = _file_handler(tmp_path)
    # A request queued 5 s ago on a loop that never ran its turn's end (a test client's).
    obs._REQUESTS.queue.append((time.time(), "-", "GET", "/a", 200, 0.001))
    obs._REQUESTS.due = time.time() - 5

    async def queue_one() -> str:
        obs.record_request("GET", "/b", 200, 0.001)
        return path.read_text()  # before this loop's turn ends

    written = asyncio.run(queue_one())
    assert [json.loads(x)["route"] for x in written.splitlines()] == ["/a", "/b"]


def test_to_a_stream_without_a_descriptor_lines_are_written_at_once(restore_logging):
    obs.configure_logging("json")
    stream = io.StringIO()
    logging.getLogger("gpucost").handlers[0].setStream(stream)

    async def scenario() -> str:
        obs.record_request("GET", "/healthz", 200, 0.001)
        return stream.getvalue()  # before the loop's turn ends

    assert json.loads(asyncio.run(scenario()))["route"] == "/healthz"
