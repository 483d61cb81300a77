"""What chat's language-model reader (:func:`app.query.llm_words.read_llm`) understood
(:class:`LlmQuestion`), and how much work the question asks for in the asker's unit: a token
count's scale words, a serving load in requests ("10 requests per second": tokens a day at
the default output length) and a training run in epochs of samples, each written into the
question with the default it rests on stated."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from app.costing.defaults import LLM_OUTPUT_TOKENS, LLM_SEQUENCE_LENGTH


@dataclass
class LlmQuestion:
    """What :func:`read_llm` understood: the request and the defaults it chose."""

    request: dict[str, Any]
    defaults: list[tuple[str, Any, str]] = field(default_factory=list)
    min_memory_gb: float | None = None
    hours: float | None = None  # a stated duration, h: the job is what it runs in that time
    tokens_given: bool = False
    break_even: bool = False  # buy or rent: the runs after which a desktop pays for itself
    per_second: bool = False  # "tokens per second": the speed is the answer
    room: str | None = None  # "context" or "batch": the longest or the most the GPUs hold
    read: list[str] = field(default_factory=list)  # the words this reader used


SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "b": 1e9, "billion": 1e9,
         "t": 1e12, "trillion": 1e12}  # fmt: skip
# "3 epochs of 50k samples (of 512 tokens each)": a training run in the user's unit.
EPOCHS = re.compile(
    r"\b(\d+(?:\.\d+)?)\s*epochs?\s+(?:of|over|on)\s+(?:an?\s+|the\s+)?(?:dataset\s+of\s+)?"
    r"(\d[\d,]*(?:\.\d+)?)\s?(k|m|thousand|million)?\s+"
    r"(?:samples|examples|rows|conversations|instructions|documents|sequences)"
    r"(?:\s+(?:of|at|with)\s+(?:about\s+|~)?(\d[\d,]*)\s+tokens(?:\s+each)?)?",
    re.I,
)

# "10 requests per second", "500 queries a minute", "20k requests/day", "5 rps": a serving load.
REQUESTS = re.compile(
    r"\b(\d[\d,]*(?:\.\d+)?)\s?(k|m|thousand|million)?\s*(?:(?:requests?|reqs?|queries|"
    r"prompts|calls|chats|completions)\s*(?:a|per|each|every|/)\s*(second|sec|s|minute|min|"
    r"hour|hr|h|day)\b|(rps|qps|rpm))",
    re.I,
)
PER_DAY_OF = {"s": 86_400, "m": 1_440, "h": 24, "d": 1}


def request_rate(q: LlmQuestion, m: re.Match[str]) -> None:
    """A serving load in requests: ``tokens_per_day`` = requests a day x the default output
    tokens of a request (stated, with its source: say `N tokens a day` to give the volume)."""
    n = float(m.group(1).replace(",", "")) * SCALE.get((m.group(2) or "").lower(), 1)
    unit = (m.group(3) or {"rps": "s", "qps": "s", "rpm": "m"}[m.group(4).lower()]).lower()
    per_day = n * PER_DAY_OF["m" if unit.startswith("mi") else unit[0]]
    each = LLM_OUTPUT_TOKENS
    q.request["tokens_per_day"] = per_day * each.number
    q.tokens_given = True
    q.read.append(m.group(0))
    q.defaults.append(
        (
            "tokens_per_day",
            per_day * each.number,
            f"'{m.group(0).strip()}': {per_day:,.0f} requests a day x {each.number:g} output "
            f"tokens each, the default {each.basis} ({each.source}, as of {each.as_of}); say "
            "`N tokens a day` to give the volume",
        )
    )


def epoch_tokens(q: LlmQuestion, m: re.Match[str]) -> None:
    """Tokens of ``epochs x samples x tokens per sample``; a sample without its length is
    counted at the training sequence length (packed sequences: an upper bound), stated."""
    epochs = float(m.group(1))
    samples = float(m.group(2).replace(",", "")) * SCALE.get((m.group(3) or "").lower(), 1)
    if m.group(4):
        each = float(m.group(4).replace(",", ""))
    else:
        each = LLM_SEQUENCE_LENGTH.number
        d = LLM_SEQUENCE_LENGTH
        why = f"default: each sample packed to the {d.basis} ({d.source}, as of {d.as_of})"
        q.defaults.append(
            ("tokens per sample", each, why + ", an upper bound; say `of 512 tokens each`")
        )
    q.read.append(m.group(0))
    q.tokens_given = True
    q.request["tokens"] = epochs * samples * each
