"""Turn loose chat text (``break-even for 3090 at 15% util vs aws spot v100``) into a typed
:class:`Interpretation` for the cost engine.

Pure: no FastAPI, database or settings imports. The catalog's names (GPUs, utilization
profiles, regions, benchmarks) come in as a :class:`Lexicon`, so the parser can be tested
against the real catalog or a tiny one.

How it reads a query, in order (each piece it understands is blanked out of the working text,
so what is left over is reported as ``ignored``):

1. ``share`` words (``share``, ``in channel``, ``post it``) -> reply in the channel; then
   instance names (:mod:`app.query.names`: ``p4d.24xlarge``, ``a3-highgpu-8g``).
2. Prices (:mod:`app.query.price_words`): a cloud price per hour (``vs $2.14/h``, ``2.14 usd per hour``).
3. An electricity price (``at $0.30/kWh``, ``30 cents/kwh``, ``electricity $0.3``).
3b. A budget (``$60k``, ``budget of 40k EUR``) and people (``8 students``): a fleet plan.
4. Utilization: ``15% util``, ``15 percent``, ``util 0.15``, ``6 hours a day``, profile names
   (``phd desktop``, ``slurm cluster``), and last a bare ``0.15``.
5a. Ownership (before durations): resale (``resell after 3 years``, ``sell it in 18
   months``), currency (``in EUR``, ``in euros``, ``€``), memory needs (``for transformers``,
   ``for kaggle``, ``for research``, ``for computer vision``) and 16-bit (``fp16``, ``16-bit``,
   ``mixed precision``).
5. Durations: ``100 gpu-hours`` (``a month`` makes it a usage rate), ``for 2 years``,
   ``10 hours`` (a runtime), ``90 minutes``.
6. A region after ``in``: a country or US state name (``in germany``, ``in california``) or an
   upper-case US state code (``in CA``).
7. Benchmarks (``stylegan``, ``yolor``, ``efficientnet``; typos are matched fuzzily).
8. Clouds the catalog lacks (``vast.ai``: declined) and provider typos (``runpd``). The
   cloud side: everything after ``vs``/``versus``/``against``/``compared to``, plus any
   provider (``aws``, ``colab pro``, ``lambda``) or pricing word (``spot``, ``on-demand``).
9. GPUs with counts (``4x 3090``, ``two 4090s``, ``a100 80gb``, ``h100 sxm``, ``3090 x2``).
10. The intent (:mod:`app.query.intents`): two GPUs side by side, the GPU list, a Colab plan,
    buy-or-rent and a power bill first, then keywords (typos tolerated), else inferred from
    what was given.

GPU names typed with the letter o for zero (``3o90``) are read and said. What no step read:
a number, a quantity word or a catalog name is declined with the reason (``declined``, said
in the answer's headline; an unknown GPU is refused with the closest names); only words that
name nothing are ``ignored``.

Anything out of range (utilization over 100 %, a negative price, zero GPUs) is reported in
``problems``; a caller must refuse such a query rather than guess.
"""

from __future__ import annotations

import re
import unicodedata

from rapidfuzz import fuzz, process

from app.costing.model import HOURS_PER_MONTH
from app.models.interpretation import Interpretation
from app.query import budget_words, gpu_words, names, price_words, time_words
from app.query.intents import plan_question, read_intent
from app.query.lexicon import Lexicon
from app.query.vocabulary import (
    AMOUNT,
    BRANDS,
    BUY_OR_RENT,
    COLAB_PLANS,
    CURRENCY_NAMES,
    CURRENCY_WORDS,
    DAYS_PER_UNIT,
    HELP,
    MAX_QUERY_CHARS,
    MEMORY_NAMES,
    MEMORY_WORDS,
    NUM,
    NUMBER_WORDS,
    PLAN_PATTERN,
    PLAN_WORDS,
    PRICING,
    PRICING_PATTERN,
    PRICING_WORDS,
    PROVIDER_PATTERN,
    PROVIDER_WORDS,
    PROVIDERS,
    SPELLED_NUMBERS,
    STOPWORDS,
    UTILIZATION_WORDS,
    WORD,
    amount_of,
    to_number,
    unit_days,
)
from app.query.work import Work

_TYPOGRAPHIC = str.maketrans("×’–—", "x'--")  # typographic characters to ASCII


def clean(text: str) -> str:
    """NFKC, typographic characters to ASCII, control characters to spaces, spaces
    collapsed, a leading ``/gpucost`` dropped."""
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(_TYPOGRAPHIC)
    text = "".join(" " if unicodedata.category(c)[0] == "C" else c for c in text)
    text = re.sub(r"\s+", " ", text).strip()
    # "2x4090", "4xA100": a count glued to a GPU name
    text = re.sub(r"\b(\d{1,3})\s*[xX](?=[a-zA-Z]*\d)", r"\1x ", text)
    return re.sub(r"^/?gpucost\b:?\s*", "", text, flags=re.IGNORECASE)


def parse(text: str, lexicon: Lexicon) -> Interpretation:
    """Read ``text`` into an :class:`Interpretation` (never raises on any string)."""
    original = clean(text)[: MAX_QUERY_CHARS + 1]
    it = Interpretation(text=original)
    if len(original) > MAX_QUERY_CHARS:
        it.problems.append(f"the question is longer than {MAX_QUERY_CHARS} characters")
        return it
    low = original.lower()
    if not low or HELP.match(low):
        it.intent = "help"
        return it
    w = Work(low)

    _share(w, it)
    names.instances(w, it, lexicon)
    price_words.cloud_price(w, it)
    price_words.desktop_price(w, it)
    price_words.electricity(w, it)
    price_words.purchase_price(w, it, lexicon.currencies)
    price_words.bare_gpu_price(w, it, lexicon.currencies)
    price_words.condition(w, it)
    budget_words.budget(w, it, lexicon.currencies)
    budget_words.people(w, it)
    budget_words.tariff(w, it)
    budget_words.tax(w, it)
    _utilization(w, it, lexicon)
    _ownership(w, it, lexicon)
    budget_words.peaks(w, it)
    time_words.gpu_named_hours(w, it, lexicon)
    time_words.durations(w, it)
    _bare_utilization(w, it)
    _region(w, it, lexicon, original)
    _benchmark(w, it, lexicon)
    names.unlisted_providers(w, it, lexicon)
    names.provider_typos(w, it)
    _cloud_words(w, it)
    names.gpu_typos(w, it, lexicon)
    gpu_words.gpus(w, it, lexicon)
    price_words.split_total(w, it)
    _model_size(w, it)
    _memory_need(w, it)
    read_intent(w, it)
    _monthly_gpu_hours(it)
    _out_of_scope(it, low)
    _leftovers(w, it, lexicon)
    it.check()
    return it


def _share(w: Work, it: Interpretation) -> None:
    if w.take(
        r"\b(?:share(?:\s+(?:it|this|with\s+(?:the\s+)?(?:team|channel)))?|in[\s_-]?channel|"
        r"post\s+(?:it|this)|publicly|for\s+(?:the\s+)?(?:team|channel|everyone))\b"
    ):
        it.share = True


def _set_utilization(it: Interpretation, u: float, said: str) -> None:
    if not 0 < u <= 1:
        it.problems.append(f"utilization '{said}' must be above 0 and at most 100 %")
    elif it.utilization is None and it.utilization_profile is None:
        it.utilization = u
    elif it.utilization != u:
        it.declined.append(f"'{said}': one utilization per question; used the first")


def _utilization(w: Work, it: Interpretation, lex: Lexicon) -> None:
    util_word = r"(?:util\w*|utili[sz]ation|usage|usage\s+rate|busy|load|of\s+the\s+time)"
    lead = rf"(?:(?:at|with|@)\s+)?(?:{util_word}\s*(?:of|at|=|:|is)?\s*)?"
    for m in w.take(rf"{lead}{NUM}\s*(?:%|percent|pct|per\s?cent)(?:\s*{util_word})?"):
        _set_utilization(it, to_number(m.group(1)) / 100, m.group(0).strip())
    hour_unit = r"(?:h|hrs?|hours?)\b"
    for m in w.take(rf"\b{util_word}\s*(?:of|at|=|:|is)?\s*{NUM}\b(?!\s*%)(?!\s*{hour_unit})"):
        _set_utilization(it, to_number(m.group(1)), m.group(0).strip())
    # "8 hours a day, 5 days a week": a working week
    for m in w.take(
        rf"{NUM}\s*{hour_unit}\s*(?:/|a|per|each)\s*day\b,?\s*(?:and\s+)?{NUM}\s*days?\s*"
        rf"(?:/|a|per|each)\s*(?:week|wk)\b"
    ):
        day, days = to_number(m.group(1)), to_number(m.group(2))
        _set_utilization(it, day * days / 168, m.group(0).strip())
    for m in w.take(
        rf"{NUM}\s*(?:h|hrs?|hours?)\s*(?:/|a|per|each)\s*day\b|"
        rf"{NUM}\s*(?:h|hrs?|hours?)\s+(?:daily|nightly|every\s+(?:day|night))\b"
    ):
        hours = to_number(m.group(1) or m.group(2))
        _set_utilization(it, hours / 24, m.group(0).strip())
    for pattern, u in UTILIZATION_WORDS.items():
        for m in w.take(rf"(?<![\w/]){pattern}(?![\w/])"):
            _set_utilization(it, u, m.group(0).strip())
    # "40 hours a week": a week is 168 hours
    for m in w.take(rf"{NUM}\s*(?:h|hrs?|hours?)\s*(?:/|a|per|each)\s*(?:week|wk)\b"):
        _set_utilization(it, to_number(m.group(1)) / 168, m.group(0).strip())
    if lex.profile_words is not None:
        # Always blanked, even when a utilization is already set; the first phrase of the
        # lexicon's order (longest first) names the profile.
        found = {m.group(1) for m in w.take(lex.profile_words)}
        phrase = next((p for p in lex.profiles if p in found), None)
        if phrase is not None and it.utilization is None and it.utilization_profile is None:
            it.utilization_profile = lex.profiles[phrase]


def _ownership(w: Work, it: Interpretation, lex: Lexicon) -> None:
    """Resale horizon, answer currency, memory preset and 16-bit precision."""
    for m in w.take(
        rf"\b(?:re-?sell(?:ing)?|sell(?:ing)?|resale)(?:\s+(?:it|them|the\s+\w+))?\s+"
        rf"(?:after|in|at|within)\s+{AMOUNT}\s*(?:-\s*)?(years?|yrs?|y|months?|mos?)\b"
    ):
        years = amount_of(m, 1) * unit_days(m.group(3)) / DAYS_PER_UNIT["year"]
        if not 0 < years <= 20:
            it.problems.append(f"'{m.group(0).strip()}': resale must be within 20 years")
        else:
            it.resell_after_years = years
    codes = "|".join(re.escape(c.lower()) for c in sorted(lex.currencies, key=len, reverse=True))
    for m in w.take(rf"(?:\b(?:in|into|as)\s+)?(?<![\w])({CURRENCY_NAMES}|{codes})(?![\w])"):
        said = m.group(1)
        code = CURRENCY_WORDS.get(said, said.upper())
        if code in lex.currencies:
            it.currency = code
        else:
            it.problems.append(f"no exchange rate for '{said}' in the catalog")
    for m in w.take(rf"\b(?:for|doing|with)\s+(?:a\s+|the\s+)?({MEMORY_NAMES})(?:\s+work)?\b"):
        it.memory_preset = it.memory_preset or MEMORY_WORDS[m.group(1)]
    if w.take(r"\b(?:fp16|bf16|16[\s-]?bit|half[\s-]precision|mixed[\s-]precision|amp)\b"):
        it.precision = "fp16"


def _bare_utilization(w: Work, it: Interpretation) -> None:
    """A lone fraction (``0.15``) left after prices and durations is a utilization."""
    for m in w.take(r"(?<![\w.$/-])(?:(?:at|with|@)\s+)?(0?\.\d+|1\.0+)(?![\w.%/])"):
        _set_utilization(it, to_number(m.group(1)), m.group(0).strip())


def _monthly_gpu_hours(it: Interpretation) -> None:
    """``N gpu-hours a month`` is a usage rate: utilization = N / (730 h x GPUs). Asked what
    renting it costs (run cost, offers) with no other amount of work, it prices the GPUs
    for a month (or the period asked) at that utilization; beyond what the GPUs asked for
    can give, the month's GPU-hours on the cheapest rentals, whatever their size."""
    if it.gpu_hours_per_month is None or plan_question(it):
        return  # a fleet plan reads the rate itself: demand, not one machine's utilization
    count = it.gpu.count if it.gpu else 1
    monthly = it.gpu_hours_per_month
    if it.intent in ("run_cost", "offers", "gpu_info") and not (
        it.gpu_hours or it.runtime_s or it.benchmark
    ):
        it.intent = "run_cost" if it.intent == "gpu_info" else it.intent  # not its specs
        month = DAYS_PER_UNIT["month"]
        if monthly > HOURS_PER_MONTH * count:  # "cheapest h100 for 1000 gpu hours a month"
            it.gpu_hours = monthly * (it.horizon_days or month) / month
            it.horizon_days = None
            return
        it.horizon_days = it.horizon_days or month  # "cost of 300 gpu hours a month on an h100"
    if count == 1 and monthly > HOURS_PER_MONTH and BUY_OR_RENT.search(it.text.lower()):
        return  # more than one GPU's month, no count given: the break-even sizes the box
    _set_utilization(it, monthly / (HOURS_PER_MONTH * count), f"{monthly:g} GPU-hours a month")


def _region(w: Work, it: Interpretation, lex: Lexicon, original: str) -> None:
    for m in re.finditer(r"\bin\s+", w.text):
        start = m.end()
        rest = w.text[start : start + 40]
        # Upper-case two-letter US state code, as typed: "in CA".
        code = original[start : start + 2]
        after = original[start + 2 : start + 3]
        if code in lex.state_codes and (after == "" or not after.isalnum()):
            it.region = lex.state_codes[code]
            w.blank(m.start(), start + 2)
            return
        for name in lex.regions:
            if rest.startswith(name) and not rest[len(name) : len(name) + 1].isalnum():
                it.region = lex.regions[name]
                w.blank(m.start(), start + len(name))
                return
    # A country or state named without "in" ("4xA100, 2 weeks, Norway"): a whole word of at
    # least 4 letters, the longest name found first (one pass over the question).
    if lex.bare_regions is None:
        return
    found = max(lex.bare_regions.finditer(w.text), key=lambda m: len(m.group(0)), default=None)
    if found:
        it.region = lex.regions[found.group(0)]
        w.blank(found.start(), found.end())


def _benchmark(w: Work, it: Interpretation, lex: Lexicon) -> None:
    for phrase in lex.benchmarks:
        if w.take(rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])"):
            it.benchmark = it.benchmark or lex.benchmarks[phrase]
    if it.benchmark:
        return
    # Typos: a word close to a benchmark name ("effcientnet", "stylegn").
    for m in WORD.finditer(w.text):
        word = m.group(0)
        if len(word) < 5 or word.isdigit():
            continue
        best = process.extractOne(word, list(lex.benchmarks), scorer=fuzz.ratio, score_cutoff=80)
        if best:
            it.benchmark = lex.benchmarks[best[0]]
            w.blank(m.start(), m.end())
            return


def _cloud_words(w: Work, it: Interpretation) -> None:
    c = it.cloud
    for name in _named(w, PROVIDER_PATTERN, PROVIDER_WORDS):
        if c.provider not in (None, PROVIDERS[name]):
            it.declined.append(f"'{name}': one provider per question; used {c.provider}")
        c.provider = c.provider or PROVIDERS[name]
    for name in _named(w, PRICING_PATTERN, PRICING_WORDS):
        c.pricing_model = c.pricing_model or PRICING[name]
    if c.provider == "colab":
        for name in _named(w, PLAN_PATTERN, PLAN_WORDS):
            c.colab_plan = c.colab_plan or COLAB_PLANS[name]


def _named(w: Work, pattern: re.Pattern[str], words: tuple[str, ...]) -> list[str]:
    """The ``words`` that ``pattern`` (:func:`app.query.vocabulary.any_word` of them) finds
    in ``w``, blanked out; each once, in ``words``' order (longest first)."""
    found = {m.group(0) for m in w.take(pattern)}
    return [x for x in words if x in found]


# A model size ("a 13B model", "70b llm"): never a GPU memory need. A size that names a catalog
# language model is answered before this parser (app/query/llm_words.py, /v1/llm/estimate);
# one that reaches here names none.
MODEL_SIZE = re.compile(r"\b\d+(?:\.\d+)?\s*b\b(?:\s*(?:param\w*|models?|llms?))?")


MODEL_SIZE_PROBLEM = "matches no language model in the catalog"


def _model_size(w: Work, it: Interpretation) -> None:
    """Refuse rather than misread a model size as a GPU memory need."""
    if m := w.take(MODEL_SIZE):
        it.problems.append(
            f"'{m[0].group(0).strip()}' {MODEL_SIZE_PROBLEM} (within 25 % of its size); name one of `GET /v1/llm/models`, e.g. `lora llama 3 8b on 100M "
            "tokens`, or ask for the memory, e.g. `cheapest gpu with at least 48GB`"
        )


def _memory_need(w: Work, it: Interpretation) -> None:
    """``at least 48GB``, ``80GB of GPU memory``, ``>= 24 gb vram`` (GPU names such as
    ``a100 80gb`` were read before)."""
    for m in w.take(
        rf"(?:(?:at\s+least|min(?:imum)?|>=?|over|more\s+than)\s*)?{NUM}\s*(?:gb|gib|g)\b"
        r"(?:\s+(?:of\s+)?(?:gpu\s+)?(?:memory|vram|ram))?"
    ):
        it.min_gpu_memory_gb = to_number(m.group(1))


# Number words that name no quantity on their own ("a 4090", "one of").
_ARTICLES = frozenset({"a", "an", "one", "single"})
# A year typed as a date ("prices in 2024"): not read, said.
_YEAR = re.compile(r"(?:19|20)\d\d")
# A model number: letters around 2-5 digits ("9999", "rtx5095", "h300").
_MODEL_NUMBER = re.compile(r"[a-z]{0,5}\d{2,5}[a-z]{0,5}")


# Questions gpucost has no honest answer to, and why (refused, never answered as something
# else): a price forecast, a game's performance, a closed model's speed or size.
OUT_OF_SCOPE = (
    (
        re.compile(
            r"\b(?:will|going\s+to|expect)\b.{0,40}\b(?:prices?|costs?)\b.{0,20}"
            r"\b(?:drop|fall|go\s+down|rise|go\s+up|increase|decrease|come\s+down)\b"
        ),
        "gpucost does not forecast prices: it answers on the catalog's dated prices "
        "(ask `cheapest 4090` for today's)",
    ),
    (
        re.compile(r"\b(?:crysis|cyberpunk|fortnite|minecraft|fps)\b"),
        "gpucost answers the cost of compute (training, fine-tuning, inference), not games",
    ),
    (
        re.compile(r"\b(?:gpt-?[345]\w*|chatgpt|claude|gemini\s+(?:pro|ultra|flash))\b"),
        "that model's weights and architecture are not public, so its memory and speed on a "
        "GPU cannot be estimated: name an open model (`GET /v1/llm/models`)",
    ),
)


def _out_of_scope(it: Interpretation, low: str) -> None:
    """Refuse what :data:`OUT_OF_SCOPE` names, with its reason."""
    for pattern, why in OUT_OF_SCOPE:
        if pattern.search(low):
            it.problems.append(why)
            return


def _leftovers(w: Work, it: Interpretation, lex: Lexicon) -> None:
    """What no step read: a number or a quantity word is declined (an unknown GPU refused,
    with the closest names), a catalog name a step already had one of is declined, and only
    other words land in ``ignored``."""
    tokens = list(WORD.finditer(w.text))
    for k, m in enumerate(tokens):
        word = m.group(0)
        if word in STOPWORDS or word in BRANDS or word in _ARTICLES:
            continue
        if (
            any(ch.isdigit() for ch in word)
            or word in NUMBER_WORDS
            or SPELLED_NUMBERS.fullmatch(word)
        ):
            brand = tokens[k - 1].group(0) if k else ""
            said = f"{brand} {word}" if brand in BRANDS else word
            family = sorted(i.name for k, i in lex.instances.items() if k.startswith(word + "."))
            if family:
                it.declined.append(
                    f"'{word}' is an instance family: name one ({', '.join(family)})"
                )
            elif _YEAR.fullmatch(word):
                it.declined.append(
                    f"'{word}': a year is not read (prices are the catalog's latest)"
                )
            elif brand in BRANDS or _MODEL_NUMBER.fullmatch(word) and len(word) >= 3:
                similar = list(lex.gpus.similar(word))
                it.suggestions.extend(g for g in similar if g not in it.suggestions)
                hint = f"; did you mean {', '.join(similar)}?" if similar else ""
                it.problems.append(f"unknown GPU '{said.upper()}'{hint}")
            else:
                it.declined.append(f"'{word}' was not understood as a count, price or duration")
        elif kind := catalog_kind(word, lex):
            it.declined.append(f"'{word}' ({kind}) was not used: one per question")
        else:
            it.ignored.append(word)


def catalog_kind(word: str, lex: Lexicon) -> str | None:
    """What catalog thing ``word`` names on its own (a GPU, provider, region, benchmark,
    utilization profile, currency or instance), else None."""
    checks = (
        ("a GPU", bool(lex.gpus.exact(word))),
        ("a provider", word in PROVIDERS or word in lex.providers),
        ("a region", word in lex.regions),
        ("a benchmark", word in lex.benchmarks),
        ("a utilization profile", word in lex.profiles),
        ("a currency", word.upper() in lex.currencies or word in CURRENCY_WORDS),
        ("an instance", word in lex.instances),
    )
    return next((kind for kind, hit in checks if hit), None)
