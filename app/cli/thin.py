"""``gpucost ask`` as a thin HTTP client: with ``GPUCOST_URL`` set (a running gpucost, e.g.
``http://localhost:8000``) the question goes to its ``GET /v1/query`` and the answer is
printed as the in-process command prints it. Nothing of the service is imported here (no
app, numpy or database module): only the standard library's HTTP client and rich (httpx
alone takes longer to import than the request takes to answer), so a terminal answer takes
the time of one request.

Environment: ``GPUCOST_URL`` (the service's base URL), ``GPUCOST_API_KEY`` (sent as
``X-API-Key`` when set). Exit status: 0 answered, 1 not answered (the service's refusal is
printed), 2 the service could not be reached or answered with an error.
"""

from __future__ import annotations

import json
import sys
from typing import Any

# Seconds to wait for the service: a calculation answers in milliseconds; a cold catalog
# load on a busy machine can take seconds.
TIMEOUT_S = 30.0


def print_answer(ans: dict[str, Any]) -> None:
    """Print a ``QueryAnswer`` (as JSON): the headline in bold, the facts as a table, then
    the defaults assumed, suggestions, examples and ignored words."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(f"[bold]{ans['headline']}[/bold]", highlight=False)
    if ans.get("facts"):
        table = Table(show_header=False, box=None)
        for f in ans["facts"]:
            table.add_row(f["label"], f["value"])
        console.print(table)
    for d in ans.get("defaults", []):
        console.print(
            f"[dim]assumed {d['name']} = {d['value']}: {d['source']}[/dim]", highlight=False
        )
    if ans.get("suggestions"):
        console.print("Did you mean: " + ", ".join(ans["suggestions"]) + "?", highlight=False)
    for example in ans.get("examples", []):
        console.print(f'  try: gpucost ask "{example}"', highlight=False)
    if ans.get("ignored"):
        console.print(f"[dim]ignored: {', '.join(ans['ignored'])}[/dim]", highlight=False)


def ask_over_http(url: str, args: list[str], api_key: str | None = None) -> int:
    """Ask the service at ``url`` the question in ``args`` (``--json`` prints the whole
    answer); returns the exit status."""
    import http.client
    from urllib.parse import urlencode, urlsplit

    as_json = "--json" in args
    words = [a for a in args if a != "--json"]
    if not words or words[0] in ("-h", "--help"):
        print('usage: gpucost ask "QUESTION" [--json]   (over GPUCOST_URL)')
        return 0 if words else 2
    headers = {"X-API-Key": api_key} if api_key else {}
    where = urlsplit(url)
    connection = (
        http.client.HTTPSConnection if where.scheme == "https" else http.client.HTTPConnection
    )
    path = f"{where.path.rstrip('/')}/v1/query?{urlencode({'q': ' '.join(words)})}"
    try:
        conn = connection(where.netloc, timeout=TIMEOUT_S)
        conn.request("GET", path, headers=headers)
        r = conn.getresponse()
        text = r.read().decode("utf-8", "replace")
    except OSError as exc:  # refused, unreachable, timed out, TLS
        print(f"error: {url} did not answer: {exc}", file=sys.stderr)
        return 2
    is_json = "json" in (r.getheader("content-type") or "")
    body = json.loads(text) if is_json else {}
    if r.status != 200:
        detail = body.get("detail") or text[:200]
        print(f"error: {r.status} {detail}", file=sys.stderr)
        return 1 if r.status == 422 else 2
    if as_json:
        print(json.dumps(body, indent=2))
    else:
        print_answer(body)
    return 0 if body.get("answered") else 1
