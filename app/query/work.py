"""The parser's working copy of a question: the lower-cased text with understood spans
blanked out, positions kept, so each step reads only what earlier steps left."""

from __future__ import annotations

import re


class Work:
    """The lower-cased text with understood spans blanked out (positions kept)."""

    def __init__(self, text: str) -> None:
        self.text = text
        # A price read as the sum of several cards' ("two 3090s for $1,400 total").
        self.cards_total = False

    def take(self, pattern: str | re.Pattern[str]) -> list[re.Match[str]]:
        """Every match of ``pattern``, then blanked out."""
        found = list(re.finditer(pattern, self.text))
        for m in found:
            self.blank(m.start(), m.end())
        return found

    def blank(self, start: int, end: int) -> None:
        self.text = self.text[:start] + " " * (end - start) + self.text[end:]

    def replace(self, start: int, text: str) -> None:
        """Overwrite the text at ``start`` with ``text`` of the same length (a typo fixed)."""
        self.text = self.text[:start] + text + self.text[start + len(text) :]
