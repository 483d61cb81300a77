"""The words people use that the catalog does not hold: number words, duration units,
providers, pricing models, Colab plans, profile and region synonyms, memory and currency
words, stopwords, and the number patterns the parser reads amounts with."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from app.costing.model import DAYS_PER_MONTH, DAYS_PER_YEAR
from app.models.interpretation import Intent

MAX_QUERY_CHARS = 500
DAYS_PER_UNIT = {"day": 1.0, "week": 7.0, "month": DAYS_PER_MONTH, "year": DAYS_PER_YEAR}

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
    "vast.ai": "vast", "vastai": "vast", "vast ai": "vast", "vast": "vast",
    "shadeform": "shadeform", "verda": "verda", "datacrunch": "verda", "data crunch": "verda",
    "nebius": "nebius", "hyperstack": "hyperstack", "cudo": "cudo", "cudo compute": "cudo",
    "oracle cloud": "oci", "oracle": "oci", "oci": "oci", "prime intellect": "primeintellect",
    "primeintellect": "primeintellect", "jarvislabs": "jarvislabs", "jarvis labs": "jarvislabs",
    "hyperbolic": "hyperbolic", "yotta": "yotta", "lium": "lium", "daytona": "daytona",
    "digitalocean": "do", "digital ocean": "do",
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

# Asked before the others (on the working text): the catalog's GPU list, a Colab plan's
# price, a power bill. Their words would otherwise read as offers, run cost or carbon.
GPU_LIST = re.compile(
    r"\b(?:what|which)\s+gpus\b|\blist\s+(?:all\s+)?(?:the\s+|your\s+)?gpus\b|"
    r"\bgpus\s+(?:do\s+you|are\s+(?:supported|known|available))|\b(?:supported|all)\s+gpus\b"
)
COLAB_PRICE = re.compile(
    r"\bcompute\s+units?\b|\bcolab\b(?:\s+(?:pro\+?|pro\s+plus|free|pay\s+as\s+you\s+go))?\s*"
    r"(?:plans?|subscriptions?|prices?|pricing|cost|per\s+month|a\s+month|monthly)\b|"
    r"(?:how\s+much|price|cost)\s+(?:is|of|does)?\s*(?:a\s+|the\s+)?colab\b"
)
ELECTRICITY = re.compile(
    r"\belectric(?:ity|al)?\b|\bpower\s+(?:bill|costs?)\b|\benergy\s+(?:bill|costs?)\b|"
    r"\brunning\s+costs?\b|\bcost\s+to\s+(?:run|keep|power)\s+(?:a|an|my|our|the|\d)|"
    r"\bhow\s+much\s+power\b|\bpower\s+(?:does|do)\b"
)
# Two GPUs side by side ("a100 vs h100 cost per hour", "is an h100 worth it over an a100").
COMPARE_WORDS = re.compile(
    r"per\s+hour|/\s*h\b|hourly|\bprices?\b|\bcheaper\b|\bworth\s+it\s+over\b|"
    r"better\s+value|\bcompare\b|\bvs\.?\b|\bversus\b|\bor\b|\bover\b"
)
# Words that put a desktop in the question: then two GPUs are a break-even's two sides.
DESKTOP_WORDS = re.compile(
    r"break[\s-]*even|breakeven|pay(?:s)?[\s-]*(?:back|off)|payback|pay\s+for\s+itself|\bbuy\w*|"
    r"\bown\b|\bdesktop|\brig\b|\bbuild\b|\bworkstation|\bpurchas\w*|\bor\s+rent\w*"
)
# "a year of A10G", "3 weeks of 8 H100s": renting for that long.
RENTAL_SPAN = re.compile(r"\b(?:years?|months?|weeks?|days?)\s+of\b")
# "24/7", "around the clock", "half the time": a utilization in words.
UTILIZATION_WORDS = {
    r"24\s*/\s*7|24x7|around\s+the\s+clock|round\s+the\s+clock|non[\s-]?stop|all\s+the\s+time|"
    r"all\s+day\s+every\s+day|full[\s-]?time|"
    r"(?:at\s+)?full\s+(?:utili[sz]ation|util|load|usage|use|capacity|tilt)|"
    r"fully\s+(?:utili[sz]ed|loaded|busy|used)|(?:at\s+)?max(?:imum)?\s+utili[sz]ation": 1.0,
    r"half\s+(?:of\s+)?the\s+time": 0.5,
    r"three[\s-]quarters\s+of\s+the\s+time": 0.75,
    r"(?:a\s+)?quarter\s+of\s+the\s+time": 0.25,
    r"two[\s-]thirds\s+of\s+the\s+time": 2 / 3,
    r"(?:a|one)[\s-]third\s+of\s+the\s+time": 1 / 3,
}

# A break-even: read on the whole question, since buy-or-rent words ("or rent", "vs") also
# mark the cloud side and are gone from the working text by the time intents are read.
BUY_OR_RENT = re.compile(
    r"break[\s-]*even|breakeven|pay(?:s)?[\s-]*(?:back|off)|payback|buy\s+or\s+rent|"
    r"rent\s+or\s+buy|worth\s+buying|should\s+(?:i|we)\s+buy|\broi\b|\btco\b|"
    r"pay\s+for\s+itself|worth\s+it|\bbuy\b.{0,40}\bor\s+(?:rent|the\s+cloud)|"
    r"\brent\b.{0,40}\bor\s+buy|cheaper\s+to\s+(?:buy|own)|\bbuy\s+vs\.?\s+rent|"
    r"\b(?:vs\.?|versus|or)\s+(?:just\s+)?buy(?:ing)?\b|"
    r"\b(?:box|rig|desktop|workstation|build|machine|server)\s+or\s+(?:rent\w*|(?:the\s+)?cloud|"
    r"aws|gcp|azure|lambda|runpod|paperspace|colab)\b|"
    r"\brent\s+vs\.?\s+buy|\bor\s+rent\b|\bor\s+(?:the\s+)?cloud\b|"
    r"cheaper\s+than\s+(?:rent|buy)\w*|\bvs\.?\s+(?:the\s+)?cloud\b|"
    r"\bbuy\b.{0,40}\bor\s+(?:keep\s+(?:using|paying(?:\s+for)?)|stick\s+with|stay\s+on)\b|"
    r"\bcompare\b.{0,40}\b(?:box|rig|desktop|workstation|build)\s+(?:and|with|to|vs\.?|versus)\b|"
    r"cheaper\s+than\s+(?:a\s+)?(?:box|rig|desktop|workstation|build)\b|"
    r"\bvs\.?\s+renting\b|better\s+than\s+renting|"
    r"\b(?:better|cheaper)\s+(?:deal|value|option|choice)?\s*than\s+buying\b|"
    r"\brenting\s+(?:would\s+)?(?:have\s+been|be)\s+cheaper"
)

# The keyword list, in order: the first pattern the working text matches is the intent.
INTENT_PATTERNS: list[tuple[Intent, re.Pattern[str]]] = [
    ("break_even", BUY_OR_RENT),
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
            r"per[\s-]+run|"
            r"how\s+much(?!\s+(?:memory|vram|power|ram|carbon|co2|energy|emissions?|electricity))|"
            r"price\s+of\s+(?:a\s+)?run|cost\s+to\s+(?:train|run)"
        ),
    ),
    (
        "carbon",
        re.compile(
            r"carbon|\bco2e?\b|emission|footprint|\benergy\b|\bkwh\b|\bghg\b|\bkg\b|"
            r"\bhow\s+green\b|\bclimate\b"
        ),
    ),
    # A bare "cost" or "training" means a run's cost unless the question names carbon.
    ("run_cost", re.compile(r"\bcost\b|\btrain(?:ing)?\b")),
    (
        "offers",
        re.compile(
            r"cheapest|\bcompare\b|\boffers?\b|\bprices?\b|\bpricing\b|where\s+(?:can|to|should)|"
            r"\brent(?:al|ing|s)?\b|\boptions\b|\blist\b|\bwho\s+(?:rents|offers|sells|has)\b"
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
HELP = re.compile(
    r"^\s*(?:help|\?+|usage|commands|examples?|how\s+do\s+i\s+use(?:\s+this|\s+it)?|"
    r"what\s+(?:can|do)\s+you\s+do|what\s+(?:can|should)\s+i\s+ask(?:\s+you)?|"
    r"how\s+does\s+(?:this|it)\s+work|what\s+is\s+this|hi|hey|yo)\s*[?!.]*\s*$"
)

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
        "uses",
        "lab",
        "labs",
        "team",
        "group",
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


def longest_first(mapping: Mapping[str, str]) -> dict[str, str]:
    """The same mapping, iterated longest phrase first (so `pro+` wins over `pro`)."""
    return dict(sorted(mapping.items(), key=lambda kv: -len(kv[0])))


PROVIDER_WORDS = tuple(longest_first(PROVIDERS))
PRICING_WORDS = tuple(longest_first(PRICING))
PLAN_WORDS = tuple(longest_first(COLAB_PLANS))


def any_word(words: Sequence[str], *, also_after: str = "") -> re.Pattern[str]:
    """One pattern finding each of ``words`` as a whole word (not inside another word or
    number, nor followed by a character of ``also_after``); where several start at one
    place, the first of ``words`` wins (give them longest first). One compiled pattern
    instead of one a word: a parser's start-up is mostly compiling patterns."""
    alternatives = "|".join(re.escape(w) for w in words)
    return re.compile(rf"(?<![a-z0-9])(?:{alternatives})(?![a-z0-9{re.escape(also_after)}])")


PROVIDER_PATTERN = any_word(PROVIDER_WORDS)
PRICING_PATTERN = any_word(PRICING_WORDS)
PLAN_PATTERN = any_word(PLAN_WORDS, also_after="+")

# Spelled-out quantities beyond NUMBER_WORDS ("seventeen", "a dozen", "hundreds").
SPELLED_NUMBERS = re.compile(
    r"(?:zero|eleven|thirteen|fourteen|fifteen|seventeen|eighteen|nineteen|twenty|thirty|"
    r"forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|dozen)s?"
)
BRANDS = frozenset({"nvidia", "geforce", "tesla", "rtx", "gtx", "quadro"})
WORD = re.compile(r"[a-z0-9]+")
# A number starts where no digit, point or comma is just before it: each search then tries a
# run of digits once, from its start, instead of again from each digit inside it (which makes
# a 470-digit question cost ~80 ms, quadratic in the run's length).
NUM = r"(?<![\d.,])(-?\d+(?:,\d{3})*(?:\.\d+)?|-?\.\d+)"
# A number or a number word (``3``, ``three``, ``a``): two groups, read by :func:`amount_of`.
AMOUNT = r"(?:{num}|\b({words})(?=\s))".format(
    num=NUM, words="|".join(k for k in NUMBER_WORDS if len(k) > 1 or k == "a")
)


def amount_of(m: re.Match[str], group: int) -> float:
    """The value of an :data:`AMOUNT` whose first group is ``group``."""
    digits = m.group(group)
    return to_number(digits) if digits else float(NUMBER_WORDS[m.group(group + 1)])


def unit_days(unit: str) -> float:
    """Days in a duration unit as typed (``years``, ``mo``, ``wks``, ``day``)."""
    key = (
        "year" if unit.startswith("y") else
        "month" if unit.startswith("mo") else
        "week" if unit.startswith("w") else "day"
    )  # fmt: skip
    return DAYS_PER_UNIT[key]


def to_number(text: str) -> float:
    return float(text.replace(",", ""))


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
                  "usd": "USD", "dollars": "USD", "us dollars": "USD",
                  "pounds": "GBP", "pound sterling": "GBP", "£": "GBP", "sterling": "GBP", "yen": "JPY",
                  "swiss francs": "CHF", "rupees": "INR", "yuan": "CNY", "renminbi": "CNY",
                  "canadian dollars": "CAD", "australian dollars": "AUD"}  # fmt: skip
CURRENCY_NAMES = "|".join(re.escape(k) for k in sorted(CURRENCY_WORDS, key=len, reverse=True))
MEMORY_NAMES = "|".join(re.escape(k) for k in sorted(MEMORY_WORDS, key=len, reverse=True))


# Calendar months as typed: "may", "sept", "december" -> 1..12.
MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
         ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
         ("september", "sept", "sep"), ("october", "oct"), ("november", "nov"),
         ("december", "dec")]
    )
    for name in names
}  # fmt: skip
MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
# A fleet plan: "plan for 300 GPU-hours a month", "own the base, rent the peak", "a peak of
# 2,000 in May" (read with a monthly demand or a peak).
PLAN = re.compile(
    r"\bplan(?:ning)?\b|\bfleet\b|own\s+the\s+base|rent\s+the\s+peak|\bpeaks?\b|\bdeadlines?\b|"
    r"\bbudget\s+for\b"
)
PEAK_WORDS = re.compile(r"\bpeaks?\b|\bdeadlines?\b|\bspikes?\b|\bbursts?\b")


CLOUD_MARKER = re.compile(
    r"\b(?:vs\.?|v\.?s\.?|versus|against|compared\s+(?:to|with)|instead\s+of|or\s+rent\w*|"
    r"rent(?:ing)?\s+(?:on|from|at|an?))(?![a-z0-9])"
)
