"""Prices a question types (a step each of :func:`app.query.parser.parse`): a cloud price per
hour (``vs $2.14/h``), a desktop's total price (``$3k rig``) and an electricity price per kWh
in dollars, cents, euros or pounds (``at $0.30/kWh``, ``30 cents/kwh``, ``electricity at
0.30 eur``), and a purchase price in dollars, euros or pounds (``a used 3090 for $700``, ``my box
costs €2,500``) with the GPUs' condition (``used``). Each blanks what it read; an implausible
value is a problem, never a guess."""

from __future__ import annotations

import re

from app.models.interpretation import Interpretation
from app.query.budget_words import MONEY, money_value
from app.query.vocabulary import CURRENCY_WORDS, NUM, to_number
from app.query.work import Work


def cloud_price(w: Work, it: Interpretation) -> None:
    hour = r"(?:/|per|an?|each)\s*(?:gpu[\s-]*)?(?:h|hr|hrs|hour)\b"
    found = w.take(rf"(?:\$|usd\s*)\s*{NUM}\s*(?:usd\s*|dollars?\s*)?{hour}") or w.take(
        rf"{NUM}\s*(?:\$|usd|dollars?)\s*{hour}"
    )
    if found:
        price = to_number(found[0].group(1))
        if price < 0:
            it.problems.append("a cloud price cannot be negative")
        else:
            it.cloud.price_usd_per_hour = price


def desktop_price(w: Work, it: Interpretation) -> None:
    """``$3000 build``, ``a $2,500 4090 desktop``, ``$3k rig``: the desktop's total price."""
    machine = r"(?:build|desktop|machine|pc|rig|workstation|box|computer|tower)"
    found = w.take(rf"(?:\$|usd\s*){NUM}\s*(k)?\b(?=(?:\s+[a-z0-9]+){{0,3}}\s+{machine}\b)")
    if found:
        m = found[0]
        price = to_number(m.group(1)) * (1000 if m.group(2) else 1)
        if price <= 0:
            it.problems.append("a desktop price must be positive")
        else:
            it.desktop_price_usd = price


# An electricity word and its verb, before a price typed without its unit ("electricity at
# 0.30 eur", "power costs 30 cents").
_POWER_AT = (
    r"\b(?:electricity|power|energy)(?:\s+(?:price|cost|rate|tariff))?\s*(?:at|is|=|of|costs?|:)\s*"
)


_KWH = r"(?:/|per|a|an)\s*kwh\b"
# A price per kWh in dollars or cents: the patterns tried in order (the first that matches is
# read), each with its number in group 1, and what that number is divided by to make USD/kWh.
_USD_PER_KWH = (
    (rf"(?:\$|usd\s*)\s*{NUM}\s*(?:usd\s*)?{_KWH}", 1),
    (rf"{NUM}\s*(?:\$|usd|dollars?)?\s*{_KWH}", 1),
    (rf"{NUM}\s*(?:cents?|ct|c|¢)\s*{_KWH}", 100),
    (
        rf"(?:electricity|power\s+price|energy\s+price)\s*(?:at|is|=|of|costs?|:)?\s*"
        rf"(?:\$|usd\s*)\s*{NUM}",
        1,
    ),
    (rf"{_POWER_AT}\s*{NUM}\s*(?:cents?|ct|¢)(?![\w%])", 100),
    (  # "electricity at 0.30": a price per kWh
        r"\b(?:electricity|power|energy)(?:\s+(?:price|rate|tariff))?\s*(?:at|is|=|:)\s*"
        r"(\d*\.\d+)(?:\s*(?:usd|dollars?))?(?![\w.%/$]|\s*(?:%|percent))",
        1,
    ),
)


def electricity(w: Work, it: Interpretation) -> None:
    if _local_electricity(w, it, _KWH):
        return
    price: float | None = None
    for pattern, divisor in _USD_PER_KWH:
        if m := w.take(pattern):
            price = to_number(m[0].group(1)) / divisor
            break
    if price is None:
        return
    if price < 0:
        it.problems.append("an electricity price cannot be negative")
    elif price > 5:
        it.problems.append(f"${price:g}/kWh is not a plausible electricity price (max $5/kWh)")
    else:
        it.electricity_price_usd_per_kwh = price
    w.take(r"\b(?:electricity|power)\s+(?:price\s+)?(?:at|of|is)?\b")


def _local_electricity(w: Work, it: Interpretation, kwh: str) -> bool:
    """A price per kWh in euros or pounds ("€0.25/kWh", "0.30 eur per kwh"): kept in that
    currency, which becomes the answer's (the API's ``electricity_price_per_kwh`` is in the
    request's currency)."""
    if found := w.take(rf"{NUM}\s*(?:p|pence)\s*{kwh}"):  # "28p per kWh": pence
        return _set_local_electricity(it, to_number(found[0].group(1)) / 100, "GBP")
    sign = r"(€|£|eur|gbp)"
    # "0.30 eur/kWh", or after an electricity word without the unit ("electricity at 0.30 eur")
    found = w.take(rf"{sign}\s*{NUM}\s*{kwh}") or w.take(rf"{_POWER_AT}{sign}\s*{NUM}")
    if found:
        said, value = found[0].group(1), found[0].group(2)
    elif found := w.take(rf"{NUM}\s*(€|£|euros?|eur|gbp)\s*{kwh}") or w.take(
        rf"{_POWER_AT}{NUM}\s*(€|£|euros?|eur|gbp)(?![a-z])"
    ):
        value, said = found[0].group(1), found[0].group(2)
    else:
        return False
    return _set_local_electricity(it, to_number(value), CURRENCY_WORDS.get(said, said.upper()))


def _set_local_electricity(it: Interpretation, price: float, currency: str) -> bool:
    """Set a local-currency price per kWh (or the problem with it); True: it was read."""
    if not 0 <= price <= 5:
        it.problems.append(f"{price:g} {currency}/kWh is not a plausible electricity price")
    elif it.currency not in (None, currency):
        it.problems.append(
            f"the electricity price is in {currency} but the answer in {it.currency}"
        )
    else:
        it.electricity_price_per_kwh, it.currency = price, currency
    return True


_MACHINE = r"(?:desktop|box|build|rig|pc|workstation|machine|computer|tower|server)"
_LEAD = r"(?:about|around|~|only|just|roughly)?\s*"
# A machine's total price: "desktop price $2,800", "my box costs €2,500", "a build for 3000 eur".
_TOTAL = re.compile(
    rf"\b{_MACHINE}\s+(?:price\s*(?:of|is|at|:|=)?|costs?|cost\s+me|priced\s+at|is|at|for|"
    rf"(?:that\s+)?i\s+(?:paid|bought\s+for))\s*{_LEAD}({MONEY})"
)
# One GPU's price, after a GPU: "a used 3090 for $700", "5090 at 2500 eur", "paid 650 eur".
_EACH = re.compile(
    rf"\b(?:at|for|costs?|cost\s+me|paid|priced\s+at|bought\s+(?:it\s+|them\s+)?for)\s+"
    rf"{_LEAD}({MONEY})(?:\s+(?:each|apiece|a\s+card|per\s+(?:card|gpu)))?"
)
# Above this a sum after "for"/"at" is not read as one GPU's price (it is declined, with the
# way to say a budget): 2.5x the dearest purchase price in the shipped catalog (a B200 at
# $40,000, app/data/curated/gpus.csv), so any card's quote in dollars, euros or pounds (the
# currencies a price is read in) passes.
MAX_GPU_PRICE = 100_000


def purchase_price(w: Work, it: Interpretation, currencies: frozenset[str]) -> None:
    """A price the question gives for what it buys, in dollars, euros or pounds: after
    a machine word it is the machine's total price (``desktop price $2,800``, ``my box costs
    €2,500``), else after at/for/paid one GPU's (``a used 3090 for $700``, ``5090 at 2500
    eur``). A currency other than the answer's, or one without a rate, is declined."""
    for pattern, what in ((_TOTAL, "total"), (_EACH, "gpu")):
        for m in w.take(pattern):
            value, code = money_value(m.group(1))
            said = m.group(0).strip()
            if value <= 0:
                it.problems.append(f"'{said}': a price must be positive")
            elif what == "gpu" and value > MAX_GPU_PRICE:
                it.declined.append(
                    f"'{said}' is not read as one GPU's price (say `budget of ...` for a budget)"
                )
            elif code != "USD" and (code not in currencies or it.currency not in (None, code)):
                it.declined.append(
                    f"'{said}': no exchange rate for {code}, or another currency asked"
                )
            else:
                _set_price(it, what, value, code)
                w.take(r"\b(?:(?:we\s+)?(?:were|got|was)\s+)?(?:quoted|bought|paid)\b")


def _set_price(it: Interpretation, what: str, value: float, code: str) -> None:
    if code != "USD":
        it.currency = code
    if what == "total" and code == "USD":
        it.desktop_price_usd = value
    elif what == "total":
        it.desktop_price = value
    elif code == "USD":
        it.gpu_price_usd = value
    else:
        it.gpu_price = value


_USED = r"(?:used|second[\s-]?hand|secondhand|refurbished|refurb|pre[\s-]?owned|ex[\s-]?mining)"
# What "used" qualifies: a count, a GPU or card word, a brand, or a model number.
_BOUGHT_THING = (
    r"(?:\d+\s*x?\s+)?(?:rtx|gtx|quadro|tesla|radeon|rx|nvidia|amd|geforce|card|cards|gpus?|"
    r"box|desktop|build|rig|one|[a-z]?\d{3,4}\b|a\d{2,4}|h\d{3}|v100|l40s?|p\d{2,3}\b)"
)


def condition(w: Work, it: Interpretation) -> None:
    """``used``, ``second-hand``, ``refurbished`` before what is bought (``a used 3090``), or
    ``bought used``: the GPUs' condition is used; ``brand new``: new."""
    if w.take(rf"\b{_USED}(?=\s+{_BOUGHT_THING})|\b(?:bought|buy|buying|get)\s+{_USED}\b"):
        it.condition = "used"
    elif w.take(rf"\bbrand[\s-]new\b(?=\s+{_BOUGHT_THING})"):
        it.condition = "new"
