"""``/mcp``'s endpoint (app.integrations.mcp_endpoint): the SDK is not imported with the app,
the first MCP request starts the server inside the lifespan (once, however many arrive
together), and outside the lifespan the endpoint answers 503 problem+json."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio

from app.integrations import mcp_server
from app.integrations.mcp_endpoint import McpEndpoint
from app.main import app

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}


async def _post(
    endpoint: McpEndpoint, body: dict, host: bytes = b"127.0.0.1:8000", origin: bytes = b""
) -> tuple[int, dict | str]:
    raw = json.dumps(body).encode()
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/mcp", "raw_path": b"/mcp", "query_string": b"",
        "root_path": "", "client": ("127.0.0.1", 1), "server": ("test", 80),
        "headers": [(b"host", host), (b"content-type", b"application/json"),
                    (b"accept", b"application/json, text/event-stream"),
                    (b"content-length", str(len(raw)).encode())]
                   + ([(b"origin", origin)] if origin else []),
    }  # fmt: skip
    sent = False

    async def receive():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}
        await anyio.sleep_forever()

    out: list[dict] = []

    async def send(message):
        out.append(message)

    await endpoint(scope, receive, send)
    body_bytes = b"".join(m.get("body", b"") for m in out if m["type"] == "http.response.body")
    try:
        return out[0]["status"], json.loads(body_bytes)
    except ValueError:
        return out[0]["status"], body_bytes.decode()


def test_importing_the_app_does_not_import_the_sdk():
    code = "import sys, app.main; print('mcp' in sys.modules, 'mcp_types' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]


def test_first_requests_start_one_server_inside_the_lifespan(monkeypatch):
    made = []
    real = mcp_server.session_manager

    def counted(server):
        made.append(server)
        return real(server)

    monkeypatch.setattr(mcp_server, "session_manager", counted)
    endpoint = McpEndpoint(app)
    answers: list[tuple[int, dict]] = []

    async def scenario():
        async with endpoint.running():
            async with anyio.create_task_group() as tasks:
                for _ in range(3):  # three first requests at once
                    tasks.start_soon(lambda: _take(answers, endpoint))
            assert endpoint.manager is not None
        assert endpoint.manager is None  # stopped with the lifespan

    anyio.run(scenario)
    assert len(made) == 1
    assert [status for status, _ in answers] == [200, 200, 200]
    assert {a["result"]["serverInfo"]["name"] for _, a in answers} == {"gpucost"}


async def _take(answers: list, endpoint: McpEndpoint) -> None:
    answers.append(await _post(endpoint, INITIALIZE))


def test_outside_the_lifespan_it_answers_503():
    endpoint = McpEndpoint(app)
    status, problem = anyio.run(_post, endpoint, INITIALIZE)
    assert status == 503
    assert problem["status"] == 503 and "retry" in problem["detail"]


def test_through_the_app_the_first_call_answers(client):
    headers = {"accept": "application/json, text/event-stream"}
    answer = client.post("/mcp", json=INITIALIZE, headers=headers)
    assert answer.status_code == 200
    assert answer.json()["result"]["serverInfo"]["name"] == "gpucost"


def test_a_foreign_host_or_origin_is_refused():
    """Issue 48: ``/mcp`` checked neither ``Host`` nor ``Origin`` (DNS rebinding: a page on
    another site, resolved to this machine, could call the tools). Now the SDK's transport
    security answers 421 for a host outside ``mcp_allowed_hosts`` and 403 for a browser
    origin outside ``mcp_allowed_origins``; loopback, with or without a page, is answered."""
    endpoint = McpEndpoint(app)
    answers: dict[str, int] = {}

    async def scenario():
        async with endpoint.running():
            for name, host, origin in (
                ("rebound host", b"attacker.example", b""),
                ("foreign page", b"127.0.0.1:8000", b"http://attacker.example"),
                ("loopback", b"localhost:8000", b""),
                ("loopback page", b"127.0.0.1:8000", b"http://127.0.0.1:8000"),
            ):
                answers[name] = (await _post(endpoint, INITIALIZE, host, origin))[0]

    anyio.run(scenario)
    assert answers == {
        "rebound host": 421,
        "foreign page": 403,
        "loopback": 200,
        "loopback page": 200,
    }
