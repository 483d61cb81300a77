"""Answers that are files: a report as the body, with a ``Content-Disposition`` that names it
(``inline`` for a page to view, ``attachment`` for a file to save)."""

from __future__ import annotations

from collections.abc import Iterable

from fastapi.responses import Response

from app.models.common import Responses
from app.render.reports import Report


def report_response(report: Report, *, inline: bool) -> Response:
    """``report`` (its bytes, media type and file name) as the answer."""
    disposition = "inline" if inline else "attachment"
    return Response(
        report.content,
        media_type=report.media_type,
        headers={"Content-Disposition": f'{disposition}; filename="{report.filename}"'},
    )


def file_responses(
    description: str, *, text: Iterable[str] = (), binary: Iterable[str] = ()
) -> Responses:
    """The documented 200 of an operation that answers with a file: ``description``, then
    each media type of ``text`` with a string schema and each of ``binary`` with a binary
    one (``format: binary``)."""
    content: dict[str, dict[str, dict[str, str]]] = {
        media: {"schema": {"type": "string"}} for media in text
    }
    content |= {media: {"schema": {"type": "string", "format": "binary"}} for media in binary}
    return {200: {"description": description, "content": content}}
