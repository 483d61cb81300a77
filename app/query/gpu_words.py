"""The GPUs a question names (a step of :func:`app.query.parser.parse`): each catalog GPU
name with its count ("2x 3090", "two a100s", "4090 x2"), on the desktop's side or the
cloud's: after a cloud marker ("vs", "on lambda") the cloud's, and when two are named, the
verb just before each ("renting an h100 ... buying a 5090") says which."""

from __future__ import annotations

import re

from app.models.interpretation import GpuMention, Interpretation
from app.query.lexicon import Lexicon
from app.query.vocabulary import BRANDS, CLOUD_MARKER, NUMBER_WORDS, STOPWORDS, WORD
from app.query.work import Work

# The verb just before a GPU that says which side it is on: "renting an h100", "buying a 5090".
_SIDE_VERB = re.compile(
    r"\b(rent(?:ing|ed|al)?|buy(?:ing)?|bought|own(?:ing)?|purchas(?:e|ing))\s+"
    r"(?:(?:an?|the|one|two|\d+\s*x?|used|new)\s+)*$"
)


# A rental's price just before a GPU: "$1.20 per hour for an a100".
_RENTED_BEFORE = re.compile(r"(?:/\s*h\w*|per\s+hour|an?\s+hour)\s+for\s+(?:an?\s+|the\s+)?$")
# What just follows a GPU and says which side it is on: "3090 for 750 usd", "ada bought for
# $7k" (bought); "l40s rented at", "a100 at $1.10/h" (rented).
_BOUGHT_AFTER = re.compile(
    r"^\s*(?:(?:is|was|were)\s+)?(?:bought|purchased|(?:for|at)\s+(?:[$€£]\s*\d[\d,.]*\s*k?|"
    r"\d[\d,.]*\s*k?\s*(?:usd|eur|gbp|dollars?|euros?|pounds?|quid)\b)"
    r"(?![\d.,]|\s*(?:/|per\b|an?\s+h|%)))"
)
_RENTED_AFTER = re.compile(r"^\s*(?:rented|hired)\b")


def _by_verb(
    text: str, mention: tuple[GpuMention, int, int, bool]
) -> tuple[GpuMention, int, int, bool]:
    """``mention`` on the side the words around it name (a verb before it: rent is the
    cloud's, buy and own the desktop's; a rental price before it; "bought", "rented" or a
    purchase price after it), else where it was. ``text``: the question as typed (lower
    case), whose prices the working text has blanked."""
    before, after = text[max(0, mention[1] - 30) : mention[1]], text[mention[2] : mention[2] + 40]
    verb = _SIDE_VERB.search(before)
    if verb is not None:
        return (mention[0], mention[1], mention[2], verb.group(1).startswith("rent"))
    if _RENTED_BEFORE.search(before) or _RENTED_AFTER.match(after):
        return (mention[0], mention[1], mention[2], True)
    if _BOUGHT_AFTER.match(after):
        return (mention[0], mention[1], mention[2], False)
    return mention


def gpus(w: Work, it: Interpretation, lex: Lexicon) -> None:
    """Read the GPUs named in ``w`` into ``it.gpu`` (the desktop's) and ``it.cloud.gpu``;
    a third GPU is declined."""
    found_marker = CLOUD_MARKER.search(w.text)
    marker = found_marker.start() if found_marker else None
    tokens = list(WORD.finditer(w.text))
    mentions: list[tuple[GpuMention, int, int, bool]] = []  # mention, span, after "vs"
    i = 0
    while i < len(tokens):
        found = None
        if tokens[i].group(0) not in STOPWORDS or tokens[i].group(0) in BRANDS:
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
    typed = it.text.lower()
    if len(mentions) > 1:  # "renting an h100 ... buying a 5090": the words say which side
        mentions = [_by_verb(typed, m) for m in mentions]
        mentions.sort(key=lambda m: m[3])  # the desktop's first
    elif mentions and mentions[0][3] and _BOUGHT_AFTER.match(typed[mentions[0][2] :]):
        mentions = [(*mentions[0][:3], False)]  # "cloud price 0.45 usd/h vs a 3090 for 750 usd"
    for mention, start, end, cloud_side in mentions:
        w.blank(start, end)
        if mention.count < 1:
            it.problems.append(f"'{mention.text}': the GPU count must be at least 1")
        elif cloud_side or it.gpu is not None:  # the first GPU before "vs" is the desktop's
            if it.cloud.gpu is None:
                it.cloud.gpu = mention
            elif it.cloud.gpu.ids != mention.ids:
                used = f"{it.gpu.text} and {it.cloud.gpu.text}" if it.gpu else it.cloud.gpu.text
                it.declined.append(f"'{mention.text}': two GPUs per question; used {used}")
        else:
            it.gpu = mention
    _count_bought(w, it)
    w.take(CLOUD_MARKER)


def _count_bought(w: Work, it: Interpretation) -> None:
    """ "we pay 3 bucks an hour for an h100, buy two instead": a count after "buy" with no
    GPU of its own is how many of the named GPU are bought."""
    found = re.search(
        r"\bbuy(?:ing)?\s+(\d+|[a-z]+)\b(?=\s*(?:instead|of\s+them|$|[,.?!]))", w.text
    )
    if found is None or it.gpu is None or it.gpu.count != 1:
        return
    word = found.group(1)
    count = int(word) if word.isdigit() else NUMBER_WORDS.get(word)
    if count is not None and 1 < count <= 64:
        it.gpu.count = count
        w.blank(*found.span())
