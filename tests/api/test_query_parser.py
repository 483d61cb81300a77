"""The query parser against a corpus of questions as users type them (tests/query_corpus.py),
with the real catalog's vocabulary."""

from __future__ import annotations

import pytest

from app.catalog.live import live_catalog
from app.models.interpretation import Interpretation
from app.query.answer import lexicon
from app.query.parser import catalog_kind, parse
from app.query.vocabulary import NUMBER_WORDS, SPELLED_NUMBERS
from tests.query_corpus import CORPUS
from tests.query_corpus_forums import FORUMS
from tests.query_corpus_own_terms import OWN_TERMS
from tests.query_corpus_own_terms2 import OWN_TERMS_2
from tests.query_corpus_people import PEOPLE

# Every question of the corpora; a ``gap`` entry is an expected failure (strict).
ALL = CORPUS + PEOPLE + FORUMS + OWN_TERMS + OWN_TERMS_2

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
    "currency": "currency",
    "kwh_local": "electricity_price_per_kwh",
    "tariff": "tariff",
    "budget": "budget_usd",
    "budget_local": "budget_in_currency",
    "people": "people",
    "gpu_price": "gpu_price_usd",
    "gpu_price_local": "gpu_price",
    "desk_price_local": "desktop_price",
    "condition": "condition",
}


@pytest.fixture(scope="module")
def lex(engine):
    return lexicon(live_catalog(engine).view)


def _ids(expected) -> tuple[str, ...]:
    return expected if isinstance(expected, tuple) else (expected,)


def refused(it: Interpretation) -> bool:
    return bool(it.problems) or it.intent == "unknown"


def test_corpus_is_big_enough():
    assert len(ALL) >= 300  # issue 34
    assert sum(1 for _, e in ALL if e.get("refused")) >= 15
    kinds = {e["src"] for _, e in FORUMS}
    assert kinds == {"forum", "issue", "slack", "issue-34"}, kinds


def understood(it: Interpretation, expected: dict) -> str | None:
    """None when ``it`` is the reading ``expected`` describes, else what differs."""
    if expected.get("intent") == "llm_estimate":
        # read by app/query/llm_words.py before this parser, which must not misread it
        return None if refused(it) else f"answered as {it.intent}"
    if expected.get("refused"):
        if not refused(it):
            return f"answered as {it.intent}"
        if "suggest" in expected and (it.suggestions or [None])[0] != expected["suggest"]:
            return f"suggested {it.suggestions}"
        return None
    if refused(it):
        return f"refused: {it.intent} {it.problems}"
    checks = [("intent", it.intent, expected["intent"])]
    if "gpu" in expected:
        checks.append(("gpu", it.gpu and it.gpu.ids, _ids(expected["gpu"])))
    mention = it.gpu or it.cloud.gpu
    checks.append(("count", mention.count if mention else 1, expected.get("count", 1)))
    if "cloud_gpu" in expected:
        checks.append(("cloud_gpu", it.cloud.gpu and it.cloud.gpu.ids, _ids(expected["cloud_gpu"])))
    cloud = expected.get("cloud", {})
    for key in ("provider", "pricing_model", "colab_plan"):
        if key in cloud:
            checks.append((key, getattr(it.cloud, key), cloud[key]))
    if "price" in cloud:
        checks.append(("price", it.cloud.price_usd_per_hour, pytest.approx(cloud["price"])))
    for key, attr in OPTIONAL.items():
        want = expected.get(key)
        checks.append(
            (key, getattr(it, attr), pytest.approx(want) if isinstance(want, float | int) else want)
        )
    checks.append(("tax_exempt", it.tax_exempt, expected.get("tax_exempt")))
    if "monthly" in expected:
        checks.append(("monthly", it.gpu_hours_per_month, pytest.approx(expected["monthly"])))
    checks.append(("peaks", [(p.month, p.gpu_hours) for p in it.peaks], expected.get("peaks", [])))
    checks.append(("share", it.share, expected.get("share", False)))
    checks.append(("instance", it.cloud.instance_type, expected.get("instance")))
    for key in ("declined", "corrected"):
        got, want = getattr(it, key), expected.get(key, [])
        if len(got) != len(want) or any(w not in g for g, w in zip(got, want, strict=False)):
            checks.append((key, got, want))
    wrong = [f"{k}: {got!r} != {want!r}" for k, got, want in checks if got != want]
    return "; ".join(wrong) or None


def _params():
    for text, expected in ALL:
        marks = (
            [pytest.mark.xfail(strict=True, reason=expected["gap"])] if "gap" in expected else []
        )
        yield pytest.param(text, expected, marks=marks, id=text[:60])


@pytest.mark.parametrize(("text", "expected"), list(_params()))
def test_corpus(lex, text, expected):
    miss = understood(parse(text, lex), expected)
    assert miss is None, miss


def test_understood_rate(lex, record_property):
    """Issue 19's measure: the share of the corpus read as a person would, >= 95 %."""
    misses = [(t, m) for t, e in ALL if (m := understood(parse(t, lex), e)) is not None]
    rate = 1 - len(misses) / len(ALL)
    UNDERSTOOD.update(total=len(ALL), understood=len(ALL) - len(misses), misses=misses)
    record_property("understood_rate", round(rate, 4))
    assert rate >= 0.95, misses


# Read by conftest.pytest_terminal_summary: the rate printed at the end of every run.
UNDERSTOOD: dict = {}


def _named(word: str, lex) -> bool:
    """Whether ``word`` carries a number or names a catalog thing (issue 34's rule)."""
    quantity = word in NUMBER_WORDS or SPELLED_NUMBERS.fullmatch(word)
    return any(ch.isdigit() for ch in word) or bool(quantity) or catalog_kind(word, lex) is not None


def test_nothing_named_is_ignored(lex):
    """Issue 34: every span with a quantity or a catalog name is used or declined with the
    reason; ``ignored`` holds only words that name nothing, over the whole corpus."""
    leaks = {
        text: bad
        for text, _ in ALL
        if (bad := [w for w in parse(text, lex).ignored if _named(w, lex)])
    }
    assert not leaks, leaks


def test_number_words_are_not_ignored_silently(lex):
    it = parse("break-even for a 3090 at 15% util, seventeen", lex)
    assert "seventeen" not in it.ignored
    it = parse("break-even for a 3090 at 15% util with 17 widgets", lex)
    assert it.ignored == ["widgets"] and any("'17'" in d for d in it.declined)
