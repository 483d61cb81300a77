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
TARGETS = {"base": KUSTOMIZE / "base", "example": KUSTOMIZE / "overlays/example"}
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
    [deployment] = _of(docs, "Deployment")
    [api] = deployment["spec"]["template"]["spec"]["containers"]
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        get = api[probe]["httpGet"]
        assert get["port"] == "http"
        assert client.get(get["path"]).status_code == 200, probe


def test_the_port_and_user_are_the_images(docs):
    dockerfile = (ROOT / "Dockerfile").read_text()
    port = int(re.search(r"^EXPOSE (\d+)", dockerfile, re.M).group(1))
    user = int(re.search(r"^USER (\d+)", dockerfile, re.M).group(1))
    [deployment] = _of(docs, "Deployment")
    [api] = deployment["spec"]["template"]["spec"]["containers"]
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
    assert service["spec"]["ports"][0]["targetPort"] == "http"
    [budget] = _of(docs, "PodDisruptionBudget")
    assert budget["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert budget["spec"]["minAvailable"] < deployment["spec"]["replicas"]


def test_every_setting_named_is_one_the_service_reads(docs):
    fields = {f"GPUCOST_{name.upper()}" for name in Settings.model_fields}
    named: set[str] = set()
    for cm in _of(docs, "ConfigMap"):
        named |= set(cm["data"])
    for spec in _pod_specs(docs):
        for container in spec["containers"]:
            named |= {e["name"] for e in container.get("env", [])}
            for ref in container.get("envFrom", []):
                assert ref["configMapRef"]["name"] in {
                    c["metadata"]["name"] for c in _of(docs, "ConfigMap")
                }
    assert "GPUCOST_DATABASE_URL" in named
    unknown = sorted(named - fields - NOT_SETTINGS)
    assert unknown == [], f"not settings of app/settings.py: {unknown}"


def test_every_command_is_one_the_cli_has(docs):
    runner = CliRunner()
    commands = []
    for spec in _pod_specs(docs):
        for container in spec["containers"]:
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
    create = re.search(r"kubectl -n gpucost create secret generic (\S+) (.*)", ops)
    assert create, "docs/operations.md shows how to create the Secret"
    documented = {
        (create.group(1), k) for k in re.findall(r"--from-literal=([a-z-]+)=", create.group(2))
    }
    assert refs == documented
