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
        rf"{NUM}\s*(?:\$|usd|dollars?|bucks)\s*{hour}"
    )
    cents = w.take(rf"{NUM}\s*(?:cents?|¢)\s*{hour}") if not found else []
    if found or cents:
        price = to_number((found or cents)[0].group(1)) / (100 if cents else 1)
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
# A card named by its model ("4090", "rtx a6000", "a100", "l40s", "p40"): what a price
# before or after it buys.
_CARD = (
    r"(?:(?:rtx|gtx|geforce|nvidia|tesla|quadro)\s+)?(?:[a-z]?\d{3,4}|a\d{2,4}|h\d{3}|l\d{1,2}s?|"
    r"p\d{2,3}|v100)\b"
)
_LEAD = r"(?:about|around|~|only|just|roughly)?\s*"
# A machine's total price: "desktop price $2,800", "my box costs €2,500", "a build for 3000 eur".
_TOTAL = re.compile(
    rf"\b{_MACHINE}\s+(?:price\s*(?:of|is|at|:|=)?|costs?|cost\s+me|priced\s+at|is|at|for|was|"
    rf"(?:was\s+)?quoted\s+at|(?:that\s+)?i\s+(?:paid|bought\s+for))\s*{_LEAD}({MONEY})|"
    # "I spent €12k on a 4x4090 rig"
    rf"\bspent\s+{_LEAD}({MONEY})(?=\s+on\s+(?:a|an|my|the|our)?\s*(?:[\w-]+\s+){{0,3}}{_MACHINE}\b)|"
    # "£3.5k pc with a 4090", "€3,000 build": a price in pounds or euros before a machine word
    rf"(?<![\w$€£])((?:€|£)\s*{NUM}\s*(?:k|thousand|grand)?)(?=(?:\s+[a-z0-9]+){{0,3}}\s+{_MACHINE}\b)"
)
# One GPU's price, after a GPU: "a used 3090 for $700", "5090 at 2500 eur", "paid 650 eur".
_EACH = re.compile(
    rf"\b(?:at|for|costs?|cost\s+me|paid|priced\s+at|bought\s+(?:it\s+|them\s+)?for)\s+"
    rf"{_LEAD}({MONEY})(?:\s+(?:each|apiece|a\s+card|per\s+(?:card|gpu)))?|"
    # "£2,000 for a 4090", "a $2,200 4090": a price before the card it buys
    rf"(?<![\w$€£.,])({MONEY})\s+(?:for\s+(?:a|an|my|the|one)\s+)?(?={_CARD})"
)
# "4x 3090 rig, $5,500 all in", "desktop with a 4070 ti, $1,300 all in": the machine's total
# (only the price and "all in" are read: the machine's GPUs are read later)
_ALL_IN = re.compile(rf"\b{_MACHINE}\b[^,;.$€£]{{0,30}},\s*({_LEAD}{MONEY}\s+all[\s-]in)\b")
# "two 3090s for $1,400 total": the sum of the cards' prices (divided by their count once the
# GPUs are read: :func:`split_total`)
_TOTAL_OF_CARDS = re.compile(r"^\s*(?:in\s+)?(?:total|together|combined|for\s+both|all\s+in)\b")
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
    for m in list(_ALL_IN.finditer(w.text)):
        value, code = money_value(m.group(1))
        if value > 0 and (code == "USD" or (code in currencies and it.currency in (None, code))):
            w.blank(*m.span(1))
            _set_price(it, "total", value, code)
    for pattern, what in ((_TOTAL, "total"), (_EACH, "gpu")):
        for m in w.take(pattern):
            amount = next(g for g in m.groups() if g is not None)
            value, code = money_value(amount)
            value *= _thousands_point(amount, code)
            said = m.group(0).strip()
            if what == "gpu" and w.take(_after(m, _TOTAL_OF_CARDS)):
                w.cards_total = True
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


def _thousands_point(amount: str, code: str) -> float:
    """1000 when a euro amount is written with a point between thousands ("1.900 €", as in
    German), else 1."""
    return 1000.0 if code == "EUR" and re.fullmatch(r"\D*\d{1,3}\.\d{3}\D*", amount) else 1.0


def _after(m: re.Match[str], pattern: re.Pattern[str]) -> str:
    """``pattern`` anchored where ``m`` ends (for :meth:`Work.take`)."""
    return rf"(?<=^.{{{m.end()}}}){pattern.pattern.removeprefix('^')}"


def bare_gpu_price(w: Work, it: Interpretation, currencies: frozenset[str]) -> None:
    """A price right after a card ("rtx a6000 $2,800", "4090 £1,400"): that card's price,
    unless a price was read already or it is a budget (or more than any card costs)."""
    if it.gpu_price_usd is not None or it.gpu_price is not None:
        return
    for m in re.finditer(rf"{_CARD}\s+({MONEY})(?!\s*(?:budget|grant|funding|/|per\b))", w.text):
        value, code = money_value(m.group(1))
        known = code == "USD" or (code in currencies and it.currency in (None, code))
        if 0 < value <= MAX_GPU_PRICE and known:
            w.blank(m.start(1), m.end(1))
            _set_price(it, "gpu", value, code)
            return


def split_total(w: Work, it: Interpretation) -> None:
    """Divide a price read as the sum of the cards ("two 3090s for $1,400 total") by their
    count, once the GPUs are read."""
    count = it.gpu.count if it.gpu is not None else 1
    if not w.cards_total or count <= 1:
        return
    if it.gpu_price_usd is not None:
        it.gpu_price_usd /= count
    if it.gpu_price is not None:
        it.gpu_price /= count


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
    elif found := list(
        re.finditer(rf"\b[a-z]?\d{{3,4}}s?\s+({_USED})(?=\s+(?:for|at)\b|\s\s)", w.text)
    ):
        w.blank(*found[0].span(1))  # "2x 3090 used for $1,500"
        it.condition = "used"
    elif w.take(rf"\bbrand[\s-]new\b(?=\s+{_BOUGHT_THING})"):
        it.condition = "new"
