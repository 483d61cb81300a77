"""A fleet plan goes to a drawing process (app/render/draw_pool.py) only once its resolve step
has accepted it: an unknown name is a 404 at once, not after the drawing process's turn
(schemathesis saw `POST /v1/charts/plan` answer such a 404 in 13.4 s on a busy machine)."""

from __future__ import annotations

import pytest

from app.render import draw_pool


class _PoolThatMustNotRun:
    calls = 0

    def compute(self, fn, *args, timeout_s=None):
        _PoolThatMustNotRun.calls += 1
        raise AssertionError("a refused plan reached the drawing process")


@pytest.fixture()
def pool(monkeypatch):
    monkeypatch.setattr(draw_pool, "_pool", _PoolThatMustNotRun())
    _PoolThatMustNotRun.calls = 0
    return _PoolThatMustNotRun


@pytest.mark.parametrize("path", ["/v1/plan", "/v1/charts/plan"])
def test_an_unknown_gpu_is_a_404_before_any_drawing_process(client, pool, path) -> None:
    body = {"baseline_gpu_hours_per_month": 0.0, "gpu": "0"}
    resp = client.post(path, json=body)
    assert resp.status_code == 404
    assert resp.headers["content-type"].startswith("application/problem+json")
    assert "no GPU is called '0'" in resp.json()["detail"]
    assert pool.calls == 0
