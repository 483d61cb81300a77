"""Answers that are files: a report as the body, with a ``Content-Disposition`` that names it
(``inline`` for a page to view, ``attachment`` for a file to save)."""

from __future__ import annotations

from fastapi.responses import Response

from app.render.reports import Report


def report_response(report: Report, *, inline: bool) -> Response:
    """``report`` (its bytes, media type and file name) as the answer."""
    disposition = "inline" if inline else "attachment"
    return Response(
        report.content,
        media_type=report.media_type,
        headers={"Content-Disposition": f'{disposition}; filename="{report.filename}"'},
    )
