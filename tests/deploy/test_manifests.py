"""The Kubernetes package (deploy/kustomize, issue 47 part 6): the base and the example
overlay rendered by `kubectl kustomize` (Debian's kubectl in CI: scripts/ensure_kubectl.sh)
are valid objects of the Kubernetes API (kubernetes-validate, strict: an unknown field is an
error), and what they name exists: probe paths the service answers, settings it reads, CLI
commands it has, the user and port of the Dockerfile, selectors that select the pods."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from typer.testing import CliRunner

from app.cli import app as cli_app
from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
KUSTOMIZE = ROOT / "deploy/kustomize"
TARGETS = {
    "base": KUSTOMIZE / "base",
    "example": KUSTOMIZE / "overlays/example",
    "sso": KUSTOMIZE / "overlays/sso",
}
# Every API version used (apps/v1, batch/v1 CronJob, policy/v1, networking.k8s.io/v1) is GA
# since Kubernetes 1.21; checked on 1.30 (a cluster a few years behind) and on the newest
# minor whose schemas kubernetes-validate ships.
VERSIONS = ("1.30.0", kubernetes_validate.latest_version())
REQUIRE = os.environ.get("GPUCOST_REQUIRE_KUBECTL") == "1"
# Environment variables the image or the CLI reads that are not Settings fields.
NOT_SETTINGS = {
    "PROMETHEUS_MULTIPROC_DIR",
    "MPLCONFIGDIR",
    "GPUCOST_WORKERS",  # gpucost serve's option
}


def _render(path: Path) -> list[dict[str, Any]]:
    if shutil.which("kubectl") is None:
        if REQUIRE:
            pytest.fail("GPUCOST_REQUIRE_KUBECTL=1 but kubectl is not installed")
        pytest.skip("kubectl not installed (scripts/ensure_kubectl.sh installs it)")
    out = subprocess.run(
        ["kubectl", "kustomize", str(path)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return [d for d in yaml.safe_load_all(out.stdout) if d]


@pytest.fixture(scope="module", params=sorted(TARGETS))
def docs(request) -> list[dict[str, Any]]:
    return _render(TARGETS[request.param])


def _of(docs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] == kind]


def _pod_specs(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    specs = [d["spec"]["template"]["spec"] for d in docs if d["kind"] in ("Deployment", "Job")]
    specs += [d["spec"]["jobTemplate"]["spec"]["template"]["spec"] for d in _of(docs, "CronJob")]
    return specs


def _api(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """The API container of the Deployment (the one running the gpucost image)."""
    [deployment] = _of(docs, "Deployment")
    [api] = [c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] == "api"]
    return api


def _gpucost_containers(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every container that runs the gpucost image (not a proxy beside it)."""
    return [
        c
        for spec in _pod_specs(docs)
        for c in spec["containers"]
        if c["image"].split(":")[0].endswith("gpucost")
    ]


def _port_names(deployment: dict[str, Any]) -> dict[str, str]:
    """{named container port: the container that has it} in the Deployment's pods."""
    return {
        p["name"]: c["name"]
        for c in deployment["spec"]["template"]["spec"]["containers"]
        for p in c.get("ports", [])
    }


def _skip_auth_routes(docs: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """oauth2-proxy's unauthenticated routes, (method, path regex)."""
    [deployment] = _of(docs, "Deployment")
    routes = []
    for c in deployment["spec"]["template"]["spec"]["containers"]:
        for arg in c.get("args", []):
            if arg.startswith("--skip-auth-route="):
                method, _, regex = arg.split("=", 1)[1].partition("=")
                routes.append((method, regex))
    return routes


def test_every_object_is_valid_for_the_supported_kubernetes_versions(docs):
    kinds = {d["kind"] for d in docs}
    assert {"Deployment", "Service", "Job", "CronJob", "ConfigMap", "PodDisruptionBudget"} <= kinds
    for doc in docs:
        for version in VERSIONS:
            kubernetes_validate.validate(doc, version, strict=True)


def test_a_bad_field_is_caught():
    """The validation can fail: a misspelt field in a rendered Deployment is refused."""
    doc = _render(TARGETS["base"])
    deployment = _of(doc, "Deployment")[0]
    deployment["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, VERSIONS[-1], strict=True)


def test_the_probes_are_paths_the_service_answers(docs, client):
    """Each probe asks a path the service answers 200, on a port of the pod: the API's, or
    the sign-on proxy's when that path is one it lets through unauthenticated."""
    [deployment] = _of(docs, "Deployment")
    ports = _port_names(deployment)
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        get = _api(docs)[probe]["httpGet"]
        assert get["port"] in ports, probe
        assert client.get(get["path"]).status_code == 200, probe
        if ports[get["port"]] != "api":
            assert any(
                m == "GET" and re.fullmatch(r, get["path"]) for m, r in _skip_auth_routes(docs)
            ), (probe, get["path"])


def test_the_port_and_user_are_the_images(docs):
    dockerfile = (ROOT / "Dockerfile").read_text()
    port = int(re.search(r"^EXPOSE (\d+)", dockerfile, re.M).group(1))
    user = int(re.search(r"^USER (\d+)", dockerfile, re.M).group(1))
    api = _api(docs)
    assert api["ports"] == [{"name": "http", "containerPort": port}]
    assert shlex.join(api["command"]).endswith(f"--port {port}")
    for spec in _pod_specs(docs):
        assert spec["securityContext"]["runAsUser"] == user
        assert spec["securityContext"]["runAsNonRoot"] is True


def test_the_service_and_budget_select_the_api_pods(docs):
    [deployment] = _of(docs, "Deployment")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    [service] = _of(docs, "Service")
    assert service["spec"]["selector"].items() <= labels.items()
    assert service["spec"]["ports"][0]["targetPort"] in _port_names(deployment)
    [budget] = _of(docs, "PodDisruptionBudget")
    assert budget["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert budget["spec"]["minAvailable"] < deployment["spec"]["replicas"]


def test_every_setting_named_is_one_the_service_reads(docs):
    fields = {f"GPUCOST_{name.upper()}" for name in Settings.model_fields}
    named: set[str] = set()
    maps = {c["metadata"]["name"]: c["data"] for c in _of(docs, "ConfigMap")}
    for container in _gpucost_containers(docs):
        named |= {e["name"] for e in container.get("env", [])}
        for ref in container.get("envFrom", []):
            named |= set(maps[ref["configMapRef"]["name"]])
    assert "GPUCOST_DATABASE_URL" in named
    unknown = sorted(named - fields - NOT_SETTINGS)
    assert unknown == [], f"not settings of app/settings.py: {unknown}"


def test_every_command_is_one_the_cli_has(docs):
    runner = CliRunner()
    commands = []
    for container in _gpucost_containers(docs):
        cmd = container["command"]
        line = cmd[2] if cmd[:2] == ["sh", "-c"] else shlex.join(cmd)
        commands += [shlex.split(part) for part in line.split("&&")]
    assert len(commands) >= 4  # serve, migrate, seed, catalog refresh
    for words in commands:
        assert words[0] == "gpucost", words
        sub = [w for w in words[1:] if not w.startswith("-")][:2]
        sub = [w for w in sub if not re.fullmatch(r"[\d.]+", w)]
        result = runner.invoke(cli_app, [*sub, "--help"])
        assert result.exit_code == 0, (words, result.output)


def test_the_secret_keys_are_the_ones_the_docs_create(docs):
    refs = set()
    for spec in _pod_specs(docs):
        for container in spec["containers"]:
            for e in container.get("env", []):
                ref = e.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    refs.add((ref["name"], ref["key"]))
    ops = (ROOT / "docs/operations.md").read_text()
    creates = re.findall(r"kubectl -n gpucost create secret generic (\S+) (.*)", ops)
    assert creates, "docs/operations.md shows how to create the Secrets"
    documented = {
        (name, k) for name, rest in creates for k in re.findall(r"--from-literal=([a-z-]+)=", rest)
    }
    used = {name for name, _ in refs}
    assert refs == {(name, key) for name, key in documented if name in used}


@pytest.fixture(scope="module")
def sso() -> list[dict[str, Any]]:
    return _render(TARGETS["sso"])


def _flags(container: dict[str, Any]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for arg in container["args"]:
        name, _, value = arg.partition("=")
        out.setdefault(name, []).append(value)
    return out


def test_behind_sign_on_only_the_proxy_beside_it_reaches_the_api(sso):
    """The sso overlay: the API listens on loopback only and the proxy in the same pod is
    its upstream, so the only raw peer that can send a user header is 127.0.0.1; the
    Service and the probes go through the proxy; the NetworkPolicy admits the proxy's port
    alone."""
    [deployment] = _of(sso, "Deployment")
    containers = {c["name"]: c for c in deployment["spec"]["template"]["spec"]["containers"]}
    api, proxy = containers["api"], containers["oauth2-proxy"]
    cmd = api["command"]
    assert cmd[cmd.index("--host") + 1] == "127.0.0.1"
    port = cmd[cmd.index("--port") + 1]
    flags = _flags(proxy)
    assert flags["--upstream"] == [f"http://127.0.0.1:{port}/"]
    [proxy_port] = proxy["ports"]
    [service] = _of(sso, "Service")
    assert service["spec"]["ports"][0]["targetPort"] == proxy_port["name"]
    [policy] = _of(sso, "NetworkPolicy")
    assert policy["spec"]["podSelector"]["matchLabels"].items() <= (
        deployment["spec"]["template"]["metadata"]["labels"].items()
    )
    assert [p["port"] for rule in policy["spec"]["ingress"] for p in rule["ports"]] == [
        proxy_port["name"]
    ]


def test_behind_sign_on_the_settings_believe_the_headers_the_proxy_sends(sso, monkeypatch):
    """The overlay's settings are valid Settings (single sign-on on, the trusted proxies
    loopback and no `*`), and name the headers oauth2-proxy's --pass-user-headers sets
    (X-Forwarded-User, X-Forwarded-Groups); the routes it lets through unauthenticated
    strip user headers, so a client cannot send its own there."""
    [settings_map] = [
        c for c in _of(sso, "ConfigMap") if c["metadata"]["name"].startswith("gpucost-settings")
    ]
    for name, value in settings_map["data"].items():
        monkeypatch.setenv(name, value)
    settings = Settings(_env_file=None)
    assert settings.sso_user_header == "X-Forwarded-User"
    assert settings.sso_groups_header == "X-Forwarded-Groups"
    assert "127.0.0.1" in settings.forwarded_allow_ips.split(",")
    assert settings.sso_lab_groups  # groups -> labs, as docs/operations.md shows
    [deployment] = _of(sso, "Deployment")
    [proxy] = [
        c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] != "api"
    ]
    flags = _flags(proxy)
    assert flags["--pass-user-headers"] == ["true"]
    assert flags["--skip-auth-strip-headers"] == ["true"]
    unauthenticated = _skip_auth_routes(sso)
    assert ("POST", "^/slack/") in unauthenticated  # Slack signs its own requests
    assert all(m in ("GET", "POST") for m, _ in unauthenticated)
    assert not any(re.match(r, "/v1/scenarios") for _, r in unauthenticated)
