"""The access line written by observability.log_access itself (no LogRecord) is the line the
handler's formatter writes for the same record, in JSON and text, to a file descriptor or a
stream without one; with any other logging setup the standard call is made."""

from __future__ import annotations

import io
import json
import logging
import re

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
        obs.log_access(*FIELDS)
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

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = logging.getLogger("gpucost")
    logger.handlers[0].setStream(io.StringIO())
    extra = Keep()
    logger.addHandler(extra)
    try:
        obs.log_access(*FIELDS)
    finally:
        logger.removeHandler(extra)
    assert [r.getMessage() for r in records] == ["POST /v1/break-even 200 1.2 ms"]
    assert records[0].__dict__["route"] == "/v1/break-even"
