"""Turn loose chat text (``break-even for 3090 at 15% util vs aws spot v100``) into a typed
:class:`Interpretation` for the cost engine.

Pure: no FastAPI, database or settings imports. The catalog's names (GPUs, utilization
profiles, regions, benchmarks) come in as a :class:`Lexicon`, so the parser can be tested
against the real catalog or a tiny one.

How it reads a query, in order (each piece it understands is blanked out of the working text,
so what is left over is reported as ``ignored``):

1. ``share`` words (``share``, ``in channel``, ``post it``) -> reply in the channel.
2. A cloud price per hour (``vs $2.14/h``, ``2.14 usd per hour``).
3. An electricity price (``at $0.30/kWh``, ``30 cents/kwh``, ``electricity $0.3``).
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
8. The cloud side: everything after ``vs``/``versus``/``against``/``compared to``, plus any
   provider (``aws``, ``colab pro``, ``lambda``) or pricing word (``spot``, ``on-demand``).
9. GPUs with counts (``4x 3090``, ``two 4090s``, ``a100 80gb``, ``h100 sxm``, ``3090 x2``).
10. The intent, from keywords (typos tolerated), or inferred from what was given.

Anything out of range (utilization over 100 %, a negative price, zero GPUs) is reported in
``problems``; a caller must refuse such a query rather than guess.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import Field
from rapidfuzz import fuzz, process

from app.catalog.resolve import NameIndex


def Doc(description: str):  # noqa: N802  (reads as a type annotation)
    """A field's description for the API schema (the parser's results are answered as JSON)."""
    return Field(description=description)


Intent = Literal[
    "break_even", "run_cost", "cost_per_item", "carbon", "offers", "gpu_info", "help", "unknown"
]

MAX_QUERY_CHARS = 500
DAYS_PER_UNIT = {"day": 1.0, "week": 7.0, "month": 365.0 / 12, "year": 365.0}
HOURS_PER_MONTH = 24 * DAYS_PER_UNIT["month"]  # 730 h = 8,760 h / 12

NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "dual": 2, "pair": 2, "three": 3,
    "four": 4, "quad": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "twelve": 12, "sixteen": 16,
}  # fmt: skip

PROVIDERS = {
    "aws": "aws", "amazon": "aws", "ec2": "aws",
    "gcp": "gcp", "google cloud": "gcp", "gce": "gcp",
    "azure": "azure", "microsoft": "azure",
    "lambda": "lambda", "lambda labs": "lambda", "lambdalabs": "lambda",
    "runpod": "runpod", "run pod": "runpod",
    "paperspace": "paperspace", "gradient": "paperspace",
    "colab": "colab", "google colab": "colab", "collab": "colab",
}  # fmt: skip

PRICING = {
    "spot": "spot", "preemptible": "spot", "pre-emptible": "spot",
    "interruptible": "interruptible", "community": "interruptible",
    "on-demand": "on_demand", "on demand": "on_demand", "ondemand": "on_demand",
}  # fmt: skip

# Colab plans (catalog ids of colab_plan); "pro+" is written many ways.
COLAB_PLANS = {
    "pro+": "colab-pro-plus", "pro plus": "colab-pro-plus", "proplus": "colab-pro-plus",
    "pro": "colab-pro", "pay as you go": "colab-payg", "payg": "colab-payg",
    "pay-as-you-go": "colab-payg", "free": "colab-free",
}  # fmt: skip

# Extra ways people name the catalog's utilization profiles (by profile id).
PROFILE_SYNONYMS = {
    "phd-desktop": ["phd desktop", "phd student desktop", "personal desktop", "phd"],
    "personal-typical": ["typical personal", "most personal systems", "personal system",
                         "hobby", "hobbyist"],
    "phd-slurm-cluster": ["slurm cluster", "phd slurm", "phd cluster", "slurm", "gpu cluster"],
    "company-slurm-cluster": ["company cluster", "company slurm", "research cluster",
                              "company-wide cluster", "company wide cluster"],
    "always-on": ["always on", "24/7", "24x7", "full time", "around the clock", "nonstop"],
}  # fmt: skip

# Common ways of naming places whose catalog name differs.
REGION_SYNONYMS = {
    "us": ["usa", "the us", "the usa", "united states", "america", "the states"],
    "gb": ["uk", "the uk", "britain", "great britain", "england"],
    "nl": ["holland", "the netherlands"],
    "kr": ["korea", "south korea"],
}

INTENT_PATTERNS: list[tuple[Intent, re.Pattern[str]]] = [
    (
        "break_even",
        re.compile(
            r"break[\s-]*even|breakeven|pay(?:s)?[\s-]*(?:back|off)|payback|buy\s+or\s+rent|"
            r"rent\s+or\s+buy|worth\s+buying|should\s+(?:i|we)\s+buy|\broi\b|\btco\b"
        ),
    ),
    (
        "cost_per_item",
        re.compile(
            r"(?:cost\s+)?per\s+(?:batch[\s-]+)?(?:item|image|sample|example|img)s?\b|"
            r"batch[\s-]+items?|cost\s+per\s+batch"
        ),
    ),
    (
        "run_cost",
        re.compile(
            r"run[\s-]*cost|cost\s+(?:of|per|for)\s+(?:a\s+|one\s+|the\s+)?(?:run|training|job)|"
            r"per[\s-]+run|how\s+much(?!\s+(?:memory|vram|power|ram))|price\s+of\s+(?:a\s+)?run|cost\s+to\s+(?:train|run)|"
            r"\bcost\b|\btrain(?:ing)?\b"
        ),
    ),
    (
        "carbon",
        re.compile(r"carbon|\bco2e?\b|emission|footprint|\benergy\b|\bkwh\b|\bghg\b|\bkg\b"),
    ),
    (
        "offers",
        re.compile(
            r"cheapest|\bcompare\b|\boffers?\b|\bprices?\b|\bpricing\b|where\s+(?:can|to|should)|"
            r"\brent(?:al|ing)?\b|\boptions\b|\blist\b"
        ),
    ),
    (
        "gpu_info",
        re.compile(
            r"\binfo\b|\bspecs?\b|specification|\btdp\b|\bvram\b|\bmemory\b|what\s+is|"
            r"what's|tell\s+me\s+about|\bdetails\b|\bpower\b"
        ),
    ),
]
HELP = re.compile(r"^\s*(?:help|\?+|usage|commands|how\s+do\s+i\s+use(?:\s+this|\s+it)?)\s*\??\s*$")

# Single words people misspell, for the fuzzy intent fallback.
FUZZY_INTENT_WORDS: dict[str, Intent] = {
    "breakeven": "break_even",
    "payback": "break_even",
    "carbon": "carbon",
    "emissions": "carbon",
    "footprint": "carbon",
    "cheapest": "offers",
    "compare": "offers",
    "specs": "gpu_info",
}

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "for",
        "of",
        "on",
        "at",
        "in",
        "to",
        "with",
        "and",
        "or",
        "is",
        "are",
        "be",
        "by",
        "my",
        "our",
        "me",
        "we",
        "i",
        "it",
        "this",
        "that",
        "what",
        "whats",
        "how",
        "much",
        "does",
        "do",
        "would",
        "will",
        "should",
        "can",
        "could",
        "vs",
        "versus",
        "against",
        "compared",
        "please",
        "pls",
        "plz",
        "than",
        "about",
        "gpu",
        "gpus",
        "card",
        "cards",
        "desktop",
        "machine",
        "box",
        "build",
        "rig",
        "cloud",
        "instance",
        "instances",
        "util",
        "utilization",
        "utilisation",
        "usage",
        "time",
        "per",
        "from",
        "when",
        "if",
        "get",
        "give",
        "show",
        "tell",
        "hey",
        "hi",
        "using",
        "use",
        "run",
        "runs",
        "running",
        "rent",
        "renting",
        "buy",
        "buying",
        "one",
        "x",
        "over",
        "next",
        "during",
        "days",
    ]
)


def _longest_first(mapping: Mapping[str, str]) -> dict[str, str]:
    """The same mapping, iterated longest phrase first (so `pro+` wins over `pro`)."""
    return dict(sorted(mapping.items(), key=lambda kv: -len(kv[0])))


_PROVIDER_WORDS = tuple(_longest_first(PROVIDERS))
_PRICING_WORDS = tuple(_longest_first(PRICING))
_PLAN_WORDS = tuple(_longest_first(COLAB_PLANS))

_BRANDS = frozenset({"nvidia", "geforce", "tesla", "rtx", "gtx", "quadro"})
_WORD = re.compile(r"[a-z0-9]+")
_NUM = r"(-?\d+(?:,\d{3})*(?:\.\d+)?|-?\.\d+)"
# A number or a number word (``3``, ``three``, ``a``): two groups, read by :func:`_amount`.
_AMOUNT = r"(?:{num}|\b({words}))".format(
    num=_NUM, words="|".join(k for k in NUMBER_WORDS if len(k) > 1 or k == "a")
)


def _amount(m: re.Match[str], group: int) -> float:
    """The value of an :data:`_AMOUNT` whose first group is ``group``."""
    digits = m.group(group)
    return _num(digits) if digits else float(NUMBER_WORDS[m.group(group + 1)])


def _unit_days(unit: str) -> float:
    """Days in a duration unit as typed (``years``, ``mo``, ``wks``, ``day``)."""
    key = (
        "year" if unit.startswith("y") else
        "month" if unit.startswith("mo") else
        "week" if unit.startswith("w") else "day"
    )  # fmt: skip
    return DAYS_PER_UNIT[key]


def _num(text: str) -> float:
    return float(text.replace(",", ""))


# ------------------------------------------------------------------------------------------
# The catalog's vocabulary
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lexicon:
    """Catalog names the parser recognises.

    The phrase mappings iterate longest phrase first.

    Attributes:
        gpus: name index over (id, name, aliases) of every catalog GPU.
        profiles: phrase (lower case) -> utilization profile id.
        regions: place name (lower case) -> region id (countries and US states).
        state_codes: upper-case two-letter US state code -> region id (``CA`` -> ``us-ca``).
        benchmarks: phrase (lower case) -> benchmark id.
        currencies: ISO 4217 codes with a rate in the catalog (and USD).
    """

    gpus: NameIndex
    profiles: Mapping[str, str]
    regions: Mapping[str, str]
    state_codes: Mapping[str, str]
    benchmarks: Mapping[str, str]
    currencies: frozenset[str] = frozenset({"USD"})

    @classmethod
    def build(
        cls,
        gpus: Iterable[tuple[str, str, Iterable[str]]],
        profiles: Iterable[tuple[str, str]],
        regions: Iterable[tuple[str, str, str]],
        benchmarks: Iterable[tuple[str, str]],
        currencies: Iterable[str] = (),
    ) -> Lexicon:
        """Build from catalog rows: GPUs ``(id, name, aliases)``, profiles ``(id, name)``,
        regions ``(id, name, kind)`` and benchmarks ``(id, name)``."""
        prof: dict[str, str] = {}
        for pid, name in profiles:
            prof[name.lower()] = pid
            prof[pid.replace("-", " ")] = pid
            for syn in PROFILE_SYNONYMS.get(pid, ()):
                prof[syn] = pid
        reg: dict[str, str] = {}
        codes: dict[str, str] = {}
        for rid, name, kind in regions:
            if kind not in ("country", "us_state", "world"):
                continue
            reg[name.lower()] = rid
            if kind == "us_state" and rid.startswith("us-") and len(rid) == 5:
                codes[rid[3:].upper()] = rid
            for syn in REGION_SYNONYMS.get(rid, ()):
                reg[syn] = rid
        bench: dict[str, str] = {}
        for bid, name in benchmarks:
            base = bid.split("_")[0]
            for phrase in {bid, bid.replace("_", " "), bid.replace("_", "-"), base,
                           name.lower().split(" ")[0]}:  # fmt: skip
                bench[phrase] = bid
        return cls(
            NameIndex(gpus),
            _longest_first(prof),
            _longest_first(reg),
            codes,
            _longest_first(bench),
            frozenset({"USD", *currencies}),
        )


# ------------------------------------------------------------------------------------------
# The interpretation
# ------------------------------------------------------------------------------------------


@dataclass
class GpuMention:
    """A GPU named in the text: ``ids`` has one id, or several when the name is a family
    (``h100`` -> PCIe, SXM, NVL); ``count`` GPUs."""

    text: Annotated[str, Doc("The words that named the GPU, as typed.")]
    ids: Annotated[tuple[str, ...], Doc("Catalog GPU ids it may mean (several: a family).")]
    count: Annotated[int, Doc("How many GPUs (`2x 3090` -> 2).")] = 1


@dataclass
class CloudQuery:
    """The cloud side as typed: any of provider, pricing model, Colab plan, GPU, a price."""

    provider: Annotated[str | None, Doc("Cloud provider id, e.g. `aws`.")] = None
    pricing_model: Annotated[str | None, Doc("`on_demand`, `spot`, ...")] = None
    colab_plan: Annotated[str | None, Doc("Colab plan id, e.g. `colab-pro`.")] = None
    gpu: GpuMention | None = None
    price_usd_per_hour: Annotated[float | None, Doc("A price typed for the cloud, USD/h.")] = None

    def is_empty(self) -> bool:
        return not (
            self.provider
            or self.pricing_model
            or self.colab_plan
            or self.gpu
            or self.price_usd_per_hour is not None
        )


@dataclass
class Interpretation:
    """What a query asks, as typed values (units in names). ``None`` means "not given"."""

    text: Annotated[str, Doc("The question as received.")]
    intent: Annotated[Intent, Doc("What is asked: break-even, run cost, carbon, ...")] = "unknown"
    gpu: GpuMention | None = None
    cloud: CloudQuery = field(default_factory=CloudQuery)
    utilization: Annotated[float | None, Doc("Fraction of time busy (0-1).")] = None
    utilization_profile: Annotated[str | None, Doc("Profile id, e.g. `phd-desktop`.")] = None
    electricity_price_usd_per_kwh: Annotated[float | None, Doc("USD/kWh.")] = None
    region: Annotated[str | None, Doc("Region id, e.g. `de`, `us-ca`.")] = None
    horizon_days: Annotated[float | None, Doc("Time horizon, days.")] = None
    resell_after_years: Annotated[
        float | None, Doc("Years after purchase the desktop is sold.")
    ] = None
    currency: Annotated[str | None, Doc("ISO 4217 code of the answer's currency.")] = None
    memory_preset: Annotated[str | None, Doc("Memory preset id, e.g. `transformers`.")] = None
    precision: Annotated[str | None, Doc("`fp16` when 16-bit training was asked for.")] = None
    runtime_s: Annotated[float | None, Doc("Runtime of one run, s.")] = None
    gpu_hours: Annotated[float | None, Doc("GPU-hours of work, h.")] = None
    gpu_hours_per_month: Annotated[float | None, Doc("GPU-hours per month, h.")] = None
    benchmark: Annotated[str | None, Doc("Benchmark id, e.g. `stylegan_xl`.")] = None
    share: Annotated[bool, Doc("Post the answer to the channel (Slack).")] = False
    ignored: Annotated[list[str], Doc("Words not understood.")] = field(default_factory=list)
    problems: Annotated[list[str], Doc("Why the question cannot be answered.")] = field(
        default_factory=list
    )
    suggestions: Annotated[list[str], Doc("Did-you-mean catalog ids.")] = field(
        default_factory=list
    )


# ------------------------------------------------------------------------------------------
# The parser
# ------------------------------------------------------------------------------------------


class _Work:
    """The lower-cased text with understood spans blanked out (positions kept)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def take(self, pattern: str | re.Pattern[str]) -> list[re.Match[str]]:
        """Every match of ``pattern``, then blanked out."""
        found = list(re.finditer(pattern, self.text))
        for m in found:
            self.blank(m.start(), m.end())
        return found

    def blank(self, start: int, end: int) -> None:
        self.text = self.text[:start] + " " * (end - start) + self.text[end:]


def clean(text: str) -> str:
    """NFKC, typographic characters to ASCII, control characters to spaces, spaces
    collapsed, a leading ``/gpucost`` dropped."""
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(str.maketrans({"×": "x", "’": "'", "–": "-", "—": "-"}))
    text = "".join(" " if unicodedata.category(c)[0] == "C" else c for c in text)
    text = re.sub(r"\s+", " ", text).strip()
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
    w = _Work(low)

    _share(w, it)
    _cloud_price(w, it)
    _electricity(w, it)
    _utilization(w, it, lexicon)
    _ownership(w, it, lexicon)
    _durations(w, it)
    _bare_utilization(w, it)
    _region(w, it, lexicon, original)
    _benchmark(w, it, lexicon)
    _cloud_words(w, it)
    _gpus(w, it, lexicon)
    _monthly_gpu_hours(it)
    _intent(w, it)
    _leftovers(w, it, lexicon)
    _check(it)
    return it


def _share(w: _Work, it: Interpretation) -> None:
    if w.take(
        r"\b(?:share(?:\s+(?:it|this|with\s+(?:the\s+)?(?:team|channel)))?|in[\s_-]?channel|"
        r"post\s+(?:it|this)|publicly|for\s+(?:the\s+)?(?:team|channel|everyone))\b"
    ):
        it.share = True


def _cloud_price(w: _Work, it: Interpretation) -> None:
    hour = r"(?:/|per|an?|each)\s*(?:gpu[\s-]*)?(?:h|hr|hrs|hour)\b"
    found = w.take(rf"(?:\$|usd\s*)\s*{_NUM}\s*(?:usd\s*|dollars?\s*)?{hour}") or w.take(
        rf"{_NUM}\s*(?:\$|usd|dollars?)\s*{hour}"
    )
    if found:
        price = _num(found[0].group(1))
        if price < 0:
            it.problems.append("a cloud price cannot be negative")
        else:
            it.cloud.price_usd_per_hour = price


def _electricity(w: _Work, it: Interpretation) -> None:
    kwh = r"(?:/|per|a|an)\s*kwh\b"
    price: float | None = None
    if m := w.take(rf"(?:\$|usd\s*)\s*{_NUM}\s*(?:usd\s*)?{kwh}") or w.take(
        rf"{_NUM}\s*(?:\$|usd|dollars?)?\s*{kwh}"
    ):
        price = _num(m[0].group(1))
    elif m := w.take(rf"{_NUM}\s*(?:cents?|ct|c|¢)\s*{kwh}"):
        price = _num(m[0].group(1)) / 100
    elif m := w.take(
        rf"(?:electricity|power\s+price|energy\s+price)\s*(?:at|is|=|of|costs?|:)?\s*"
        rf"(?:\$|usd\s*)\s*{_NUM}"
    ):
        price = _num(m[0].group(1))
    if price is None:
        return
    if price < 0:
        it.problems.append("an electricity price cannot be negative")
    elif price > 5:
        it.problems.append(f"${price:g}/kWh is not a plausible electricity price (max $5/kWh)")
    else:
        it.electricity_price_usd_per_kwh = price
    w.take(r"\b(?:electricity|power)\s+(?:price\s+)?(?:at|of|is)?\b")


def _set_utilization(it: Interpretation, u: float, said: str) -> None:
    if not 0 < u <= 1:
        it.problems.append(f"utilization '{said}' must be above 0 and at most 100 %")
    elif it.utilization is None and it.utilization_profile is None:
        it.utilization = u


def _utilization(w: _Work, it: Interpretation, lex: Lexicon) -> None:
    util_word = r"(?:util\w*|utili[sz]ation|usage|usage\s+rate|busy|load|of\s+the\s+time)"
    lead = rf"(?:(?:at|with|@)\s+)?(?:{util_word}\s*(?:of|at|=|:|is)?\s*)?"
    for m in w.take(rf"{lead}{_NUM}\s*(?:%|percent|pct|per\s?cent)(?:\s*{util_word})?"):
        _set_utilization(it, _num(m.group(1)) / 100, m.group(0).strip())
    for m in w.take(rf"\b{util_word}\s*(?:of|at|=|:|is)?\s*{_NUM}\b(?!\s*%)"):
        _set_utilization(it, _num(m.group(1)), m.group(0).strip())
    for m in w.take(
        rf"{_NUM}\s*(?:h|hrs?|hours?)\s*(?:/|a|per|each)\s*day\b|"
        rf"{_NUM}\s*(?:h|hrs?|hours?)\s+daily\b"
    ):
        hours = _num(m.group(1) or m.group(2))
        _set_utilization(it, hours / 24, m.group(0).strip())
    for phrase in lex.profiles:
        pattern = rf"(?<![a-z0-9]){re.escape(phrase)}(?:\s+(?:profile|usage|level))?(?![a-z0-9])"
        taken = w.take(pattern)  # always blanked, even when a utilization is already set
        if taken and it.utilization is None and it.utilization_profile is None:
            it.utilization_profile = lex.profiles[phrase]


MEMORY_WORDS = {
    "pretrained transformers": "transformers",
    "transformers": "transformers",
    "transformer": "transformers",
    "llms": "transformers",
    "kaggle": "kaggle",
    "prototyping": "prototyping",
    "computer vision": "computer-vision",
    "vision": "computer-vision",
    "cv": "computer-vision",
    "research": "research",
    "large models": "research",
}
CURRENCY_WORDS = {"euros": "EUR", "euro": "EUR", "eur": "EUR", "€": "EUR",
                  "usd": "USD", "dollars": "USD", "us dollars": "USD"}  # fmt: skip
_CURRENCY_NAMES = "|".join(re.escape(k) for k in sorted(CURRENCY_WORDS, key=len, reverse=True))
_MEMORY_NAMES = "|".join(re.escape(k) for k in sorted(MEMORY_WORDS, key=len, reverse=True))


def _ownership(w: _Work, it: Interpretation, lex: Lexicon) -> None:
    """Resale horizon, answer currency, memory preset and 16-bit precision."""
    for m in w.take(
        rf"\b(?:re-?sell(?:ing)?|sell(?:ing)?|resale)(?:\s+(?:it|them|the\s+\w+))?\s+"
        rf"(?:after|in|at|within)\s+{_AMOUNT}\s*(?:-\s*)?(years?|yrs?|y|months?|mos?)\b"
    ):
        years = _amount(m, 1) * _unit_days(m.group(3)) / DAYS_PER_UNIT["year"]
        if not 0 < years <= 20:
            it.problems.append(f"'{m.group(0).strip()}': resale must be within 20 years")
        else:
            it.resell_after_years = years
    codes = "|".join(re.escape(c.lower()) for c in sorted(lex.currencies, key=len, reverse=True))
    for m in w.take(rf"(?:\b(?:in|into|as)\s+)?(?<![\w])({_CURRENCY_NAMES}|{codes})(?![\w])"):
        said = m.group(1)
        code = CURRENCY_WORDS.get(said, said.upper())
        if code in lex.currencies:
            it.currency = code
        else:
            it.problems.append(f"no exchange rate for '{said}' in the catalog")
    for m in w.take(rf"\b(?:for|doing|with)\s+(?:a\s+|the\s+)?({_MEMORY_NAMES})(?:\s+work)?\b"):
        it.memory_preset = it.memory_preset or MEMORY_WORDS[m.group(1)]
    if w.take(r"\b(?:fp16|bf16|16[\s-]?bit|half[\s-]precision|mixed[\s-]precision|amp)\b"):
        it.precision = "fp16"


def _durations(w: _Work, it: Interpretation) -> None:
    for m in w.take(
        rf"{_NUM}\s*(k)?\s*gpu[\s-]*(?:hours?|hrs?|h)\b"
        rf"(?:\s*(?:(?:/|per|a|an|each|every)\s*(month|mo|week|day)|(monthly|weekly|daily)))?"
    ):
        value = _num(m.group(1)) * (1000 if m.group(2) else 1)
        if value <= 0:
            it.problems.append("GPU-hours must be positive")
            continue
        per = m.group(3) or {"monthly": "month", "weekly": "week", "daily": "day"}.get(
            m.group(4) or ""
        )
        if per:
            # a rate: GPU-hours per calendar period -> stored per month, turned into a
            # utilization once the GPU count is known
            days = DAYS_PER_UNIT["month" if per == "mo" else per]
            it.gpu_hours_per_month = value * (DAYS_PER_UNIT["month"] / days)
        else:
            it.gpu_hours = value
    for m in w.take(
        rf"(?:\b(?:for|over|next|during|within|in)\s+(?:the\s+)?(?:next\s+)?)?"
        rf"{_AMOUNT}\s*(?:-\s*)?(years?|yrs?|y|months?|mos?|weeks?|wks?|days?)\b"
    ):
        n = _amount(m, 1)
        if n <= 0:
            it.problems.append(f"a duration of '{m.group(0).strip()}' must be positive")
        else:
            it.horizon_days = n * _unit_days(m.group(3))
    for m in w.take(
        rf"{_NUM}\s*(hours?|hrs?|h|minutes?|mins?|seconds?|secs?)\b(?!\s*(?:/|a|per)\s*day)"
    ):
        n = _num(m.group(1))
        unit = m.group(2)
        scale = 3600 if unit.startswith("h") else 60 if unit.startswith("m") else 1
        if n <= 0:
            it.problems.append(f"a runtime of '{m.group(0).strip()}' must be positive")
        else:
            it.runtime_s = n * scale


def _bare_utilization(w: _Work, it: Interpretation) -> None:
    """A lone fraction (``0.15``) left after prices and durations is a utilization."""
    for m in w.take(r"(?<![\w.$/-])(?:(?:at|with|@)\s+)?(0?\.\d+|1\.0+)(?![\w.%/])"):
        _set_utilization(it, _num(m.group(1)), m.group(0).strip())


def _monthly_gpu_hours(it: Interpretation) -> None:
    """``N gpu-hours a month`` is a usage rate: utilization = N / (730 h x GPUs)."""
    if it.gpu_hours_per_month is None:
        return
    count = it.gpu.count if it.gpu else 1
    monthly = it.gpu_hours_per_month
    _set_utilization(it, monthly / (HOURS_PER_MONTH * count), f"{monthly:g} GPU-hours a month")


def _region(w: _Work, it: Interpretation, lex: Lexicon, original: str) -> None:
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


def _benchmark(w: _Work, it: Interpretation, lex: Lexicon) -> None:
    for phrase in lex.benchmarks:
        if w.take(rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])"):
            it.benchmark = it.benchmark or lex.benchmarks[phrase]
    if it.benchmark:
        return
    # Typos: a word close to a benchmark name ("effcientnet", "stylegn").
    for m in _WORD.finditer(w.text):
        word = m.group(0)
        if len(word) < 5 or word.isdigit():
            continue
        best = process.extractOne(word, list(lex.benchmarks), scorer=fuzz.ratio, score_cutoff=80)
        if best:
            it.benchmark = lex.benchmarks[best[0]]
            w.blank(m.start(), m.end())
            return


def _cloud_words(w: _Work, it: Interpretation) -> None:
    c = it.cloud
    for name in _PROVIDER_WORDS:
        if w.take(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])"):
            c.provider = c.provider or PROVIDERS[name]
    for name in _PRICING_WORDS:
        if w.take(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])"):
            c.pricing_model = c.pricing_model or PRICING[name]
    if c.provider == "colab":
        for name in _PLAN_WORDS:
            if w.take(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9+])"):
                c.colab_plan = c.colab_plan or COLAB_PLANS[name]


CLOUD_MARKER = re.compile(
    r"\b(?:vs\.?|v\.?s\.?|versus|against|compared\s+(?:to|with)|instead\s+of|or\s+rent\w*|"
    r"rent(?:ing)?\s+(?:on|from|at|an?))(?![a-z0-9])"
)


def _gpus(w: _Work, it: Interpretation, lex: Lexicon) -> None:
    found_marker = CLOUD_MARKER.search(w.text)
    marker = found_marker.start() if found_marker else None
    tokens = list(_WORD.finditer(w.text))
    mentions: list[tuple[GpuMention, int, int, bool]] = []  # mention, span, after "vs"
    i = 0
    while i < len(tokens):
        found = None
        if tokens[i].group(0) not in STOPWORDS or tokens[i].group(0) in _BRANDS:
            for j in range(min(len(tokens), i + 4), i, -1):
                phrase = " ".join(t.group(0) for t in tokens[i:j])
                ids = lex.gpus.exact(phrase)
                if not ids and phrase.endswith("s"):
                    ids = lex.gpus.exact(phrase[:-1])  # "4090s"
                if ids:  # (a span never starts with a stopword: "gpu" is Paperspace's "GPU+")
                    found = (j, phrase, ids)
                    break
        if not found:
            i += 1
            continue
        j, phrase, ids = found
        start, end = tokens[i].start(), tokens[j - 1].end()
        count = 1
        # counts before: "4x", "4 x", "4", "two", "a"
        if i >= 1:
            prev = tokens[i - 1].group(0)
            prev2 = tokens[i - 2].group(0) if i >= 2 else ""
            if re.fullmatch(r"\d+x?", prev) and prev.rstrip("x"):
                count, start = int(prev.rstrip("x")), tokens[i - 1].start()
            elif prev == "x" and re.fullmatch(r"\d+", prev2):
                count, start = int(prev2), tokens[i - 2].start()
            elif prev in NUMBER_WORDS:
                count, start = NUMBER_WORDS[prev], tokens[i - 1].start()
        # counts after: "x2", "x 2"
        if j < len(tokens):
            nxt = tokens[j].group(0)
            nxt2 = tokens[j + 1].group(0) if j + 1 < len(tokens) else ""
            if re.fullmatch(r"x\d+", nxt):
                count, end = int(nxt[1:]), tokens[j].end()
            elif nxt == "x" and nxt2.isdigit():
                count, end = int(nxt2), tokens[j + 1].end()
        cloud_side = marker is not None and start > marker
        mentions.append((GpuMention(phrase, tuple(sorted(ids)), count), start, end, cloud_side))
        i = j
    for mention, start, end, cloud_side in mentions:
        w.blank(start, end)
        if mention.count < 1:
            it.problems.append(f"'{mention.text}': the GPU count must be at least 1")
        elif cloud_side or it.gpu is not None:  # the first GPU before "vs" is the desktop's
            it.cloud.gpu = it.cloud.gpu or mention
        else:
            it.gpu = mention
    w.take(CLOUD_MARKER)


def _intent(w: _Work, it: Interpretation) -> None:
    for intent, pattern in INTENT_PATTERNS:
        if pattern.search(w.text):
            it.intent = intent
            break
    if it.intent == "unknown":  # a misspelt keyword, one word or two run together
        tokens = list(_WORD.finditer(w.text))
        spans = [
            (a.group(0) + b.group(0), a.start(), b.end())
            for a, b in zip(tokens, tokens[1:], strict=False)
        ]
        for word, start, end in [*spans, *((t.group(0), t.start(), t.end()) for t in tokens)]:
            if len(word) < 5:
                continue
            best = process.extractOne(
                word, list(FUZZY_INTENT_WORDS), scorer=fuzz.ratio, score_cutoff=78
            )
            if best:
                it.intent = FUZZY_INTENT_WORDS[best[0]]
                w.blank(start, end)
                break
    for _, pattern in INTENT_PATTERNS:
        w.take(pattern)
    if it.intent != "unknown":
        return
    # No keyword: infer from what was given.
    has_usage = it.utilization is not None or it.utilization_profile is not None
    if it.benchmark or (it.runtime_s and (it.gpu or it.cloud.gpu)):
        it.intent = "run_cost"
    elif it.gpu and (has_usage or not it.cloud.is_empty() or it.horizon_days):
        it.intent = "break_even"
    elif it.gpu and it.gpu_hours:
        it.intent = "carbon"
    elif it.gpu:
        it.intent = "gpu_info"
    elif not it.cloud.is_empty():
        it.intent = "offers"


def _leftovers(w: _Work, it: Interpretation, lex: Lexicon) -> None:
    for m in _WORD.finditer(w.text):
        word = m.group(0)
        if word in STOPWORDS or word in _BRANDS or word in NUMBER_WORDS:
            continue
        it.ignored.append(word)
        # A model-number-looking word that is not a GPU: suggest the closest ones.
        if re.search(r"\d", word) and not it.suggestions:
            it.suggestions.extend(lex.gpus.similar(word))


NEEDS_GPU: dict[str, str] = {
    "break_even": "Which GPU would the desktop have? e.g. `break-even for 3090 at 15% util`",
    "gpu_info": "Which GPU? e.g. `3090 specs`",
    "carbon": "Which GPU? e.g. `carbon of 4x 3090 at 15% util for a year in germany`",
}


def _check(it: Interpretation) -> None:
    """Refuse what cannot be answered: nothing understood, or an intent without its GPU."""
    understood = (
        it.gpu or it.benchmark or not it.cloud.is_empty() or it.utilization is not None
        or it.utilization_profile or it.electricity_price_usd_per_kwh is not None
        or it.region or it.runtime_s or it.gpu_hours or it.horizon_days
    )  # fmt: skip
    if it.intent == "unknown" or (not understood and it.intent not in NEEDS_GPU):
        it.intent = "unknown"
        return
    # GPU info and carbon accept a GPU named on either side; a break-even needs the desktop's.
    needs_desktop_gpu = it.cloud.gpu is None or it.intent == "break_even"
    if it.gpu is None and it.intent in NEEDS_GPU and needs_desktop_gpu:
        it.problems.append(NEEDS_GPU[it.intent])
