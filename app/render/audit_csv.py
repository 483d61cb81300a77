"""The audit log as CSV (`GET /v1/admin/audit?format=csv`), for an auditor's spreadsheet."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from app.models.audit import AuditEventOut
from app.render.report_tables import csv_cell

AUDIT_COLUMNS = ("id", "at", "actor", "actor_name", "action", "target", "before", "after")


def audit_csv(events: Sequence[AuditEventOut]) -> bytes:
    """``events`` as UTF-8 CSV, header first, ``before`` and ``after`` as JSON text (empty
    when null); text that starts like a formula is quoted with ``'``."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(AUDIT_COLUMNS)
    for e in events:
        row = [
            e.id,
            e.at.isoformat(),
            e.actor,
            e.actor_name or "",
            e.action,
            e.target,
            "" if e.before is None else json.dumps(e.before, sort_keys=True),
            "" if e.after is None else json.dumps(e.after, sort_keys=True),
        ]
        writer.writerow([csv_cell(v) for v in row])
    return buf.getvalue().encode()
