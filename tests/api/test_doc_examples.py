"""The README's and docs' examples run against the seeded catalog and fail on drift (issue
48: the README said an owned RTX 4090 costs $0.4370 an hour while the service answered
$0.3100). An example is a fenced ``sh`` block holding one ``curl`` with an inline body (or
none), followed at once by a ``json`` or ``yaml`` block of its output; or a block of ``$
gpucost ask "..."`` (or ``curl .../v1/query?... | jq -r .headline``) lines, each followed by
the lines it printed. A JSON output may be trimmed: every key it shows must be in the answer
with the value shown (numbers to the precision printed, ``"..."`` standing for what was
left out of a list or string). Dates, and ages counted from today, are the only text
compared loosely: they move with the calendar, not with the model."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
# What moves with the calendar: a date, an age ("6.2 years old", "437 days old").
CALENDAR = [
    (re.compile(r"\d{4}-\d{2}-\d{2}"), "<date>"),
    (re.compile(r"\d[\d,.]* (years?|days?|months?) old"), "<age> old"),
]


@dataclass(frozen=True)
class Example:
    page: str
    line: int
    method: str
    path: str
    params: list[tuple[str, str]]
    body: Any
    output_kind: str  # json or yaml
    output: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line} {self.method} {self.path}"


@dataclass(frozen=True)
class Question:
    page: str
    line: int
    question: str
    headline_only: bool
    printed: list[str]

    def __str__(self) -> str:
        return f"{self.page}:{self.line} {self.question!r}"


HEREDOC = re.compile(r"^cat > (\S+) <<'(\w+)'\n(.*?)\n\2\n", re.S | re.M)


def _curl(command: str) -> tuple[str, str, list[tuple[str, str]], Any] | None:
    """(method, path, query, JSON body) of a ``curl`` command with an inline body, a body
    from a file the same block writes (``cat > lab.json <<'JSON'``) or none; None for any
    other command."""
    files = {m.group(1): m.group(3) for m in HEREDOC.finditer(command)}
    command = HEREDOC.sub("", command)
    joined = command.replace("\\\n", " ")
    starts = [x for x in joined.splitlines() if x[:1].isalpha()]
    if len(starts) != 1:
        return None  # more than one command (a body's lines are indented or quoted)
    try:
        words = shlex.split(joined)
    except ValueError:
        return None
    if not words or words[0] != "curl" or "|" in words:
        return None
    method, url, body = "GET", None, None
    i = 1
    while i < len(words):
        w = words[i]
        if w == "-X":
            method, i = words[i + 1], i + 2
            continue
        if w in ("-H", "-o", "-D"):
            i += 2
            continue
        if w in ("-d", "--data", "--data-binary"):
            data = words[i + 1]
            if data.startswith("@"):
                if data[1:] not in files:
                    return None
                data = files[data[1:]]
            body, method = json.loads(data), "POST" if method == "GET" else method
            i += 2
            continue
        if not w.startswith("-"):
            url = w
        i += 1
    if url is None:
        return None
    parts = urlsplit(url if "://" in url else "http://" + url)
    return method, parts.path, parse_qsl(parts.query), body


def _examples() -> tuple[list[Example], list[Question]]:
    calls: list[Example] = []
    questions: list[Question] = []
    for page in PAGES:
        text = page.read_text()
        blocks = list(FENCE.finditer(text))
        for n, block in enumerate(blocks):
            kind, content = block.group(1), block.group(2)
            line = text.count("\n", 0, block.start()) + 1
            name = str(page.relative_to(ROOT))
            if (
                kind == "sh"
                and content.lstrip().startswith(("curl", "cat >"))
                and n + 1 < len(blocks)
            ):
                nxt = blocks[n + 1]
                gap = text[block.end() : nxt.start()].strip()
                call = _curl(content.strip())
                # At most a one-line caption between them ("Real output (2026-11-24):").
                caption = not gap or ("\n" not in gap and gap.endswith(":"))
                if call and caption and nxt.group(1) in ("json", "yaml"):
                    calls.append(Example(name, line, *call, nxt.group(1), nxt.group(2)))
            questions += _questions(name, line, content)
    return calls, questions


# "question -> intent | headline": a page's table of questions and the headlines they get.
ARROW = re.compile(r"^(?P<q>[^$].*?) -> (?P<intent>[a-z_]+) \| (?P<headline>.+)$")
ASK = re.compile(
    r'^\$ (?:\S*gpucost ask "(?P<q>[^"]+)"|curl -s "[^"]*/v1/query\?q=(?P<u>[^"]+)" \| jq -r \.headline)$'
)


def _questions(page: str, line: int, content: str) -> list[Question]:
    out: list[Question] = []
    lines = content.splitlines()
    for i, text in enumerate(lines):
        arrow = ARROW.match(text.strip())
        if arrow:
            shown = [f"{arrow.group('intent')} | {arrow.group('headline')}"]
            out.append(Question(page, line + i + 1, arrow.group("q"), True, shown))
            continue
        m = ASK.match(text.strip())
        if not m:
            continue
        printed = []
        for later in lines[i + 1 :]:
            if later.startswith("$ "):
                break
            printed.append(later)
        question = m.group("q") or dict(parse_qsl("q=" + m.group("u")))["q"]
        out.append(Question(page, line + i + 1, question, m.group("u") is not None, printed))
    return out


CALLS, QUESTIONS = _examples()
# A bare ``...`` standing for a value left out (not one inside a quoted string).
BARE_GAP = re.compile(r"(^\s*|[\[,:]\s*)\.\.\.(?=\s*[,\]}]|\s*$)", re.M)


def _gap(value: Any) -> bool:
    """Whether a shown value stands for what was left out (``"..."``, ``"... (10 in all)"``)."""
    return isinstance(value, str) and value.startswith("...")


def _decimals(number: float) -> int:
    text = repr(number)
    return len(text.split(".")[1]) if "." in text and "e" not in text else 0


def _same(shown: Any, answer: Any, where: str) -> list[str]:
    """Where ``answer`` differs from ``shown`` (a trimmed copy of an answer)."""
    if _gap(shown):
        return []
    if isinstance(shown, dict):
        if not isinstance(answer, dict):
            return [f"{where}: {answer!r} is not an object"]
        out = []
        for key, value in shown.items():
            if key not in answer:
                out.append(f"{where}.{key}: missing")
            else:
                out += _same(value, answer[key], f"{where}.{key}")
        return out
    if isinstance(shown, list):
        if not isinstance(answer, list):
            return [f"{where}: {answer!r} is not a list"]
        items = [s for s in shown if not _gap(s)]
        if len(items) == len(shown):  # the whole list: item by item
            if len(answer) != len(shown):
                return [f"{where}: {len(answer)} items, {len(shown)} shown"]
            return [p for i, x in enumerate(shown) for p in _same(x, answer[i], f"{where}[{i}]")]
        # A trimmed list: each item shown is one of the answer's, in the same order.
        at = 0
        for item in items:
            while at < len(answer) and _same(item, answer[at], where):
                at += 1
            if at == len(answer):
                return [f"{where}: no item like {item!r}"]
            at += 1
        return []
    if isinstance(shown, bool) or shown is None:
        return [] if shown == answer else [f"{where}: {answer!r}, shown {shown!r}"]
    if isinstance(shown, int | float):
        if not isinstance(answer, int | float):
            return [f"{where}: {answer!r}, shown {shown!r}"]
        close = abs(answer - shown) <= 0.5 * 10 ** -_decimals(float(shown)) + 1e-12
        return [] if close else [f"{where}: {answer!r}, shown {shown!r}"]
    if isinstance(shown, str):
        expect, got = _calendar(shown), _calendar(str(answer))
        if "..." in expect:
            head = expect.split("...")[0]
            return [] if got.startswith(head) else [f"{where}: {answer!r}, shown {shown!r}"]
        return [] if expect == got else [f"{where}: {answer!r}, shown {shown!r}"]
    return []


def _calendar(text: str) -> str:
    for pattern, stand_in in CALENDAR:
        text = pattern.sub(stand_in, text)
    return text


def test_the_pages_have_examples_to_check():
    assert len(CALLS) >= 6, [str(c) for c in CALLS]
    assert len(QUESTIONS) >= 3, [str(q) for q in QUESTIONS]


@pytest.mark.parametrize("example", CALLS, ids=str)
def test_a_documented_call_answers_what_the_page_shows(client, example):
    r = client.request(
        example.method, example.path, params=example.params or None, json=example.body
    )
    status = 200
    if example.output_kind == "json":
        shown_status = re.search(r'^\s*"status": (\d{3}),?$', example.output, re.M)
        status = int(shown_status.group(1)) if shown_status else 200  # a documented problem
    assert r.status_code == status, f"{example}: {r.status_code} {r.text[:500]}"
    if example.output_kind == "yaml":
        shown = [_calendar(x) for x in example.output.splitlines()]
        answered = [_calendar(x) for x in r.text.splitlines()]
        assert answered == shown, f"{example} drifted"
        return
    shown = json.loads(BARE_GAP.sub(r'\1"..."', example.output))
    problems = _same(shown, r.json(), "")
    assert not problems, f"{example} drifted: {problems[:10]}"


@pytest.mark.parametrize("question", QUESTIONS, ids=str)
def test_a_documented_question_answers_what_the_page_shows(client, question):
    r = client.get("/v1/query", params={"q": question.question})
    assert r.status_code == 200, f"{question}: {r.text[:300]}"
    body = r.json()
    shown = [_calendar(x.strip()) for x in question.printed if x.strip()]
    lines = [body["headline"], *(f"{f['label']} {f['value']}" for f in body.get("facts", []))]
    answered = [_calendar(" ".join(x.split())) for x in lines]
    if question.headline_only:
        if " | " in shown[0]:  # "intent | headline"
            answered[0] = f"{body['intent']} | {answered[0]}"
        assert answered[0] == " ".join(shown[0].split()), f"{question} drifted: {answered[0]}"
        return
    printed = " ".join(" ".join(shown).split())
    assert printed.startswith(answered[0].split(" (")[0]), f"{question} drifted: {answered[0]}"


def test_the_mcp_page_lists_every_tool():
    """Issue 48: docs/mcp.md listed 7 tools while the server had 8."""
    from app.integrations.mcp_server import TOOLS

    page = (ROOT / "docs" / "mcp.md").read_text()
    listed = set(re.findall(r"^\| `(\w+)` \| `(?:GET|POST)", page, re.M))
    assert listed == {t.name for t in TOOLS}
