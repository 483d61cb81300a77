"""Helpers shared by the benchmark suite and the load and fault tests: a real uvicorn server
on a fresh database, wrk runs (with Lua scripts for POST bodies and pre-signed Slack
requests), and wrk's output parsed."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.parse
import uuid
from dataclasses import dataclass
from pathlib import Path

import httpx
from slack_sdk.signature import SignatureVerifier

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".venv" / "bin"
SLACK_SECRET = "bench-signing-secret"

BREAK_EVEN = {
    "desktop": {"gpu": "rtx-3090", "total_price_usd": 2200},
    "cloud": {"offer_id": "aws-p3.2xlarge-spot-seed-2020"},
    "utilization": 0.15,
    "electricity_price_usd_per_kwh": 0.12,
}
RUN_COST = {
    "workload": {"benchmark": "yolor"},
    "options": [
        {"offer_id": "paperspace-gradient-a6000-on-demand-2022"},
        {"desktop": {"gpu": "rtx-3090", "total_price_usd": 2200}},
    ],
    "electricity_price_usd_per_kwh": 0.12,
}
QUESTION = "break-even for 3090 at 15% util"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_time_ms(response: httpx.Response) -> float:
    """The application's own time for a response (``Server-Timing: app;dur=<ms>``), ms."""
    return float(response.headers["server-timing"].split("dur=")[1])


def fresh_sqlite() -> dict[str, str]:
    """Environment for a new migrated and seeded SQLite database."""
    work = Path(tempfile.mkdtemp(prefix="gpucost-load-"))
    env = {**os.environ, "GPUCOST_DATABASE_URL": f"sqlite:///{work / 'load.db'}"}
    prepare(env)
    return env


def prepare(env: dict[str, str]) -> None:
    subprocess.run([BIN / "gpucost", "migrate"], env=env, check=True, capture_output=True)
    subprocess.run([BIN / "gpucost", "seed"], env=env, check=True, capture_output=True)


@dataclass
class Server:
    proc: subprocess.Popen
    base: str
    started_s: float  # spawn to first successful break-even, s

    def stop(self) -> None:
        """SIGTERM to uvicorn (it stops its workers), then SIGKILL to its whole session after
        15 s, so no worker outlives the test that started it."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                kill_session(self.proc)


def kill_session(proc: subprocess.Popen) -> None:
    """SIGKILL to every process of ``proc``'s session (it was started with
    ``start_new_session``): uvicorn's supervisor and its workers, which a kill of the
    supervisor alone would leave running."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


# One load generator (or test suite) is one address sending thousands of requests a minute:
# rate limits far above that, so the limiter is measured on every request but never refuses.
UNLIMITED_RATES = {
    f"GPUCOST_RATE_LIMIT_{name}": "1000000/minute"
    for name in ("ANONYMOUS", "ANONYMOUS_HEAVY", "KEY", "KEY_HEAVY")
}


def start_server(
    env: dict[str, str],
    workers: int = 1,
    timeout_s: float = 120,
    *,
    app: str = "app.main:app",
    ready: tuple[str, str, dict | None] = ("POST", "/v1/break-even", BREAK_EVEN),
    log_level: str = "WARNING",
    stderr: Path | None = None,
) -> Server:
    """uvicorn running ``app`` with uvloop and httptools and without uvicorn's own access log
    (gpucost writes its own at ``log_level``; ``stderr`` collects it); waits until ``ready``
    (method, path, JSON body) answers 200, at most ``timeout_s``: a bound, not a target.
    Two workers on PostgreSQL beside two CPU-bound processes on 2 CPUs take 9-12 s to be
    ready (2026-11-27); a slower CI machine has taken over 30 s. ``RuntimeError`` with
    the last answer if it is not ready by then (its processes are killed)."""
    port = free_port()
    env = {**env, "GPUCOST_SLACK_SIGNING_SECRET": SLACK_SECRET, "GPUCOST_LOG_LEVEL": log_level}
    env = {**UNLIMITED_RATES, **env}  # unless the caller sets its own
    t0 = time.perf_counter()
    err = stderr.open("ab") if stderr else None
    proc = subprocess.Popen(
        [
            str(BIN / "uvicorn"),
            app,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--loop",
            "uvloop",
            "--http",
            "httptools",
            "--no-access-log",
            "--log-level",
            "warning",
            "--workers",
            str(workers),
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stderr=err,
    )
    base = f"http://127.0.0.1:{port}"
    method, path, body = ready
    last = "no answer"
    while time.perf_counter() - t0 < timeout_s and proc.poll() is None:
        try:
            r = httpx.request(method, f"{base}{path}", json=body, timeout=2)
            if r.status_code == 200:
                return Server(proc, base, time.perf_counter() - t0)
            last = f"{r.status_code}: {r.text[:300]}"
        except httpx.HTTPError as e:
            last = f"{type(e).__name__}: {e}"
        time.sleep(0.02)
    exited = proc.poll()
    kill_session(proc)
    raise RuntimeError(
        f"{app} with {workers} worker(s) was not ready after {time.perf_counter() - t0:.1f} s "
        f"(exit status {exited}); the last answer to {method} {path}: {last}"
    )


def lua_post(path: str, body: dict, work: Path) -> Path:
    script = work / f"post_{uuid.uuid4().hex[:6]}.lua"
    script.write_text(
        'wrk.method = "POST"\n'
        'wrk.headers["Content-Type"] = "application/json"\n'
        f"wrk.body = {json.dumps(json.dumps(body))}\n"
    )
    return script


def signed_slack_command(text: str = QUESTION, stamp: str | None = None) -> tuple[str, dict]:
    """A slash-command form body as Slack sends it (a fresh ``trigger_id`` each time, so the
    replay check passes) and its signed headers."""
    stamp = stamp or str(int(time.time()))
    body = urllib.parse.urlencode(
        {
            "command": "/gpucost",
            "text": text,
            "trigger_id": uuid.uuid4().hex,
            "response_url": "https://hooks.slack.com/commands/T0/0/bench",
        }
    )
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": SignatureVerifier(SLACK_SECRET).generate_signature(
            timestamp=stamp, body=body
        ),
    }
    return body, headers


def lua_slack(work: Path, n: int, threads: int = 2) -> Path:
    """A wrk script cycling through ``n`` distinct, correctly signed Slack commands (the
    service refuses replays, so each request must be new; signatures stay valid 5 min).
    Each of wrk's ``threads`` takes every ``threads``-th request, so none is sent twice
    until the list wraps around."""
    stamp = str(int(time.time()))
    reqs = []
    for _ in range(n):
        body, h = signed_slack_command(stamp=stamp)
        reqs.append(
            "wrk.format('POST', '/slack/commands', {['Content-Type']="
            f"'{h['Content-Type']}', ['X-Slack-Request-Timestamp']='{stamp}', "
            f"['X-Slack-Signature']='{h['X-Slack-Signature']}'}}, '{body}')"
        )
    script = work / "slack.lua"
    script.write_text(
        "local reqs = {\n" + ",\n".join(reqs) + "\n}\n"
        "local counter = 0\n"
        "function setup(thread)\n  thread:set('offset', counter)\n  counter = counter + 1\nend\n"
        "local i = nil\n"
        "request = function()\n"
        f"  if i == nil then i = offset end\n  i = i + {threads}\n"
        "  if i > #reqs then i = offset + 1 end\n  return reqs[i]\nend\n"
    )
    return script


_UNIT = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4}


def _ms(text: str) -> float:
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    assert m, text
    return float(m.group(1)) * _UNIT[m.group(2)]


def wrk(
    url: str,
    *,
    seconds: int,
    connections: int,
    threads: int = 2,
    script: Path | None = None,
    timeout_s: int = 5,
) -> dict:
    """Run wrk with --latency; returns requests/s, p50/p99 (ms), requests, non-2xx answers,
    socket errors (connect, read, write and timeouts) and, of those, ``timeouts`` (requests
    unanswered after ``timeout_s`` seconds)."""
    cmd = [
        "wrk",
        f"-t{threads}",
        f"-c{connections}",
        f"-d{seconds}s",
        "--latency",
        f"--timeout={timeout_s}s",
    ]
    if script:
        cmd += ["-s", str(script)]
    out = subprocess.run(cmd + [url], capture_output=True, text=True, check=True).stdout
    lat = dict(re.findall(r"^\s+(50|75|90|99)%\s+(\S+)\s*$", out, re.M))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    return {
        "requests_per_s": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50_ms": _ms(lat["50"]),
        "p99_ms": _ms(lat["99"]),
        "requests": total,
        "non_2xx": int(non2xx.group(1)) if non2xx else 0,
        "socket_errors": sum(int(x) for x in sock.groups()) if sock else 0,
        "timeouts": int(sock.group(4)) if sock else 0,
        "raw": out,
    }


def rss_mb(pid: int) -> float:
    """Resident memory of a process, MB (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(pid)


def children(pid: int) -> list[int]:
    """The multiprocessing ``spawn`` children of ``pid`` (uvicorn's worker processes under
    a supervisor, or a worker's drawing processes; not the resource tracker), whichever of
    its threads started them."""
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            kids = [int(x) for x in task.read_text().split()]
        except OSError:  # the thread ended
            continue
        for child in kids:
            try:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
            if b"spawn_main" in cmdline:
                out.append(child)
    return sorted(out)


def percentiles(ms: list[float]) -> dict[str, float]:
    """Count, p50, p95, p99 and max of latencies in ms (inclusive quantiles, 3 decimals)."""
    ms = sorted(ms)
    q = statistics.quantiles(ms, n=100, method="inclusive")
    return {
        "n": len(ms),
        "p50_ms": round(q[49], 3),
        "p95_ms": round(q[94], 3),
        "p99_ms": round(q[98], 3),
        "max_ms": round(ms[-1], 3),
    }
