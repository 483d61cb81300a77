"""The query parser against a corpus of questions as users type them (tests/query_corpus.py),
with the real catalog's vocabulary."""

from __future__ import annotations

import pytest

from app.catalog.live import live_catalog
from app.query.interpretation import Interpretation
from app.query.parser import parse
from app.services.query import lexicon
from tests.query_corpus import CORPUS

# Fields that must stay unset unless the corpus entry expects them: a parser that invents a
# utilization or a region the user never typed is wrong.
OPTIONAL = {
    "util": "utilization",
    "profile": "utilization_profile",
    "kwh": "electricity_price_usd_per_kwh",
    "region": "region",
    "days": "horizon_days",
    "runtime_s": "runtime_s",
    "gpu_hours": "gpu_hours",
    "benchmark": "benchmark",
    "mem": "min_gpu_memory_gb",
    "desk_price": "desktop_price_usd",
}


@pytest.fixture(scope="module")
def lex(engine):
    return lexicon(live_catalog(engine).view)


def _ids(expected) -> tuple[str, ...]:
    return expected if isinstance(expected, tuple) else (expected,)


def refused(it: Interpretation) -> bool:
    return bool(it.problems) or it.intent == "unknown"


def test_corpus_is_big_enough():
    assert len(CORPUS) >= 80
    assert sum(1 for _, e in CORPUS if e.get("refused")) >= 10


@pytest.mark.parametrize(("text", "expected"), CORPUS, ids=[t[:60] for t, _ in CORPUS])
def test_corpus(lex, text, expected):
    it = parse(text, lex)
    if expected.get("refused"):
        assert refused(it), it
        if "suggest" in expected:
            assert it.suggestions[0] == expected["suggest"]
        return
    assert not refused(it), it
    assert it.intent == expected["intent"]
    if "gpu" in expected:
        assert it.gpu is not None and it.gpu.ids == _ids(expected["gpu"])
    if "count" in expected:
        assert (it.gpu or it.cloud.gpu).count == expected["count"]
    elif it.gpu is not None:
        assert it.gpu.count == 1
    if "cloud_gpu" in expected:
        assert it.cloud.gpu is not None and it.cloud.gpu.ids == _ids(expected["cloud_gpu"])
    cloud = expected.get("cloud", {})
    for key in ("provider", "pricing_model", "colab_plan"):
        if key in cloud:
            assert getattr(it.cloud, key) == cloud[key], key
    if "price" in cloud:
        assert it.cloud.price_usd_per_hour == pytest.approx(cloud["price"])
    for key, attr in OPTIONAL.items():
        value = getattr(it, attr)
        if key in expected:
            want = expected[key]
            assert value == (pytest.approx(want) if isinstance(want, float | int) else want), key
        else:
            assert value is None, (key, value)
    assert it.share is expected.get("share", False)
