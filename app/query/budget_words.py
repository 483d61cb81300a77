"""Words a budget question adds to the parser (:mod:`app.query.parser`): the electricity
tariff ('at home', 'university rates'), VAT ('no VAT', 'tax-exempt') and a fleet plan's
yearly peaks ('a peak of 2,000 in May'). Each step reads the working text and blanks what it
understood."""

from __future__ import annotations

import re

from app.models.interpretation import Interpretation, PeakMention
from app.query.vocabulary import (
    AMOUNT,
    MONTH_NAMES,
    MONTHS,
    NUM,
    PEAK_WORDS,
    amount_of,
    to_number,
)
from app.query.work import Work


def tariff(w: Work, it: Interpretation) -> None:
    """'at home', 'household' or 'residential' rates: the household tariff; 'commercial',
    'institutional' or 'university' rates: non-household (the default, stated)."""
    if w.take(
        r"\b(?:at\s+home|household|residential|home\s+(?=rates?|tariff|electricity))"
        r"(?:\s+(?:electricity\s+)?(?:rates?|tariff|prices?))?\b"
    ):
        it.tariff = "household"
    elif w.take(
        r"\b(?:commercial|institutional|business|university|non[\s-]?household)\s+"
        r"(?:electricity\s+)?(?:rates?|tariff|prices?)\b"
    ):
        it.tariff = "non_household"


def tax(w: Work, it: Interpretation) -> None:
    """'no VAT', 'tax-exempt', 'without VAT', 'excluding VAT': amounts without VAT; 'with
    VAT', 'including VAT': with it."""
    if w.take(
        r"\b(?:no|without|excl(?:uding|\.)?|ex)\s+(?:vat|tax(?:es)?)\b|"
        r"\b(?:vat|tax)[\s-]*(?:exempt|free)\b|\bexempt\s+from\s+(?:vat|tax(?:es)?)\b"
    ):
        it.tax_exempt = True
    elif w.take(r"\b(?:with|incl(?:uding|\.)?|plus)\s+(?:vat|tax(?:es)?)\b"):
        it.tax_exempt = False


def peaks(w: Work, it: Interpretation) -> None:
    """Months of higher demand, read when the question speaks of peaks or deadlines:
    "a peak of 2,000 in May", "1.5k GPU-hours in november", "in May of 2,000 hours"."""
    if not PEAK_WORDS.search(w.text):
        return
    hours = r"(?:\s*(?:gpu[\s-]*)?(?:hours?|hrs?|h)\b)?"
    for m in w.take(
        rf"{NUM}\s*(k)?{hours}\s+(?:in|during|each|every)\s+({MONTH_NAMES})\b"
        rf"|\b(?:in|during)\s+({MONTH_NAMES})\s+(?:of|at|with)\s+{NUM}\s*(k)?{hours}"
    ):
        number, k, month = (
            (m.group(1), m.group(2), m.group(3))
            if m.group(1)
            else (m.group(5), m.group(6), m.group(4))
        )
        value = to_number(number) * (1000 if k else 1)
        if value < 0:
            it.problems.append("a peak's GPU-hours cannot be negative")
            continue
        it.peaks.append(PeakMention(MONTHS[month], value))
    if it.peaks:
        w.take(r"\b(?:with\s+)?(?:an?\s+|the\s+)?(?:peaks?|deadlines?|spikes?|bursts?)(?:\s+of)?\b")


# Money as typed: "$60k", "60k usd", "40,000 euros", "€50k", "1.2 million dollars".
_SIGN = r"(\$|usd|€|eur|£|gbp)"
_SCALE = r"(k|m|mn|million|thousand|grand)?"
_NAMED = r"(usd|dollars?|bucks|€|eur|euros?|£|gbp|pounds?|quid)"
MONEY = rf"(?:{_SIGN}\s*{NUM}\s*{_SCALE}\b|{NUM}\s*{_SCALE}\s*{_NAMED}(?![a-z]))"
_SCALES = {"k": 1e3, "thousand": 1e3, "grand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6}
_CODES = {"$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD", "bucks": "USD",
          "€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR",
          "£": "GBP", "gbp": "GBP", "pound": "GBP", "pounds": "GBP", "quid": "GBP"}  # fmt: skip
_BUDGET_WORDS = r"(?:budget|grant|funding|funds|money|capex|allocation)"
# A budget: "budget of 40k EUR", "$60k budget", "we have $60k", "can spend 20k", "a 50k grant".
BUDGET = re.compile(
    rf"(?:\b(?:an?\s+|our\s+|the\s+|my\s+|total\s+)?{_BUDGET_WORDS}\s*(?:of|is|:|=|around|about|"
    rf"~|up\s+to)?\s*(?:about|around|~|roughly)?\s*(?:{MONEY}|{NUM}\s*{_SCALE}\b)"
    rf"|(?:\b(?:have|got|spend|afford|with|allocated|approved)\s+(?:about|around|~|up\s+to\s+)?)?"
    rf"{MONEY}(?:\s+(?:of\s+)?{_BUDGET_WORDS})?"
    rf"|\b(?:spend|afford|have|got)\s+(?:about\s+|around\s+|up\s+to\s+)?{NUM}\s*"
    r"(?:k|m|million|thousand|grand)\b)"
)
PEOPLE = re.compile(
    rf"\b{AMOUNT}\s*(?:phd\s+|grad(?:uate)?\s+|ms\s+|master'?s?\s+)?"
    r"(students|researchers|people|users|members|engineers|scientists|postdocs|phds|"
    r"interns|developers|devs|persons|team\s+members|lab\s+members)\b"
)


_MONEY = re.compile(MONEY)
_BARE = re.compile(rf"{NUM}\s*{_SCALE}\b")


def money_value(said: str) -> tuple[float, str]:
    """Value and ISO code of the amount in a :data:`BUDGET` match (a bare number is USD)."""
    if m := _MONEY.search(said):
        sign, n1, s1, n2, s2, named = m.groups()
        if n1 is not None:
            return to_number(n1) * _SCALES.get(s1 or "", 1), _CODES[sign]
        return to_number(n2) * _SCALES.get(s2 or "", 1), _CODES[named]
    m = _BARE.search(said)
    return (to_number(m.group(1)) * _SCALES.get(m.group(2) or "", 1), "USD") if m else (0, "USD")


def budget(w: Work, it: Interpretation, currencies: frozenset[str]) -> None:
    """A budget in money ("$60k for 3 years", "budget of 40k EUR"): USD, or the currency it
    is typed in (which becomes the answer's). A small amount with no budget word ("$500")
    is declined, never dropped."""
    for m in w.take(BUDGET):
        said = m.group(0).strip()
        value, code = money_value(said)
        worded = re.search(_BUDGET_WORDS, said) or re.match(r"(?:have|got|spend|afford)", said)
        if value <= 0:
            it.problems.append(f"'{said}': a budget must be positive")
        elif not worded and value < 5000:
            it.declined.append(f"'{said}' is not read as a budget or a price (say `budget of ...`)")
        elif code == "USD":
            it.budget_usd = value
        elif code in currencies and it.currency in (None, code):
            it.budget_in_currency, it.currency = value, code
        else:
            it.declined.append(f"'{said}': no exchange rate for {code}, or another currency asked")


def people(w: Work, it: Interpretation) -> None:
    """How many people share the GPUs ("8 students", "five researchers"): a plan's demand."""
    for m in w.take(PEOPLE):
        n = amount_of(m, 1)
        if n < 1 or n != int(n):
            it.problems.append(f"'{m.group(0).strip()}': a number of people must be whole")
        else:
            it.people = int(n)
