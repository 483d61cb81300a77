"""Words a budget question adds to the parser (:mod:`app.query.parser`): the electricity
tariff ('at home', 'university rates'), VAT ('no VAT', 'tax-exempt') and a fleet plan's
yearly peaks ('a peak of 2,000 in May'). Each step reads the working text and blanks what it
understood."""

from __future__ import annotations

from app.models.interpretation import Interpretation, PeakMention
from app.query.vocabulary import MONTH_NAMES, MONTHS, NUM, PEAK_WORDS, to_number
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
