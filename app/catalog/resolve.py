"""Resolve names as people type them (``3090``, ``RTX3090``, ``V100 16GB``) to catalog ids.

Pure: works on (id, name, aliases) triples. An exact match on the normalised id, name, an
alias, or the name without its brand words wins; a name that matches several GPUs is
ambiguous; anything else is unknown, with the closest ids (rapidfuzz) as candidates. No fuzzy
match is ever returned as an answer.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz, process
from rapidfuzz.distance import DamerauLevenshtein

_BRAND = re.compile(r"\b(nvidia|geforce|tesla)\b")
_PREFIX = re.compile(r"^(quadro|rtx|gtx)+")


def normalize(text: str) -> str:
    """Lower-case, drop brand words (NVIDIA, GeForce, Tesla) and everything but [a-z0-9]."""
    return re.sub(r"[^a-z0-9]", "", _BRAND.sub("", text.lower()))


def _keys(gpu_id: str, name: str, aliases: Iterable[str]) -> set[str]:
    keys = {normalize(gpu_id), normalize(name), *(normalize(a) for a in aliases)}
    # "Quadro RTX 4000" -> "rtx4000", "4000"; "GeForce RTX 3090" -> "3090"; "RTX A6000" -> "a6000".
    base = normalize(name)
    for word in ("quadro", "rtx", "gtx"):
        if base.startswith(word):
            base = base[len(word) :]
            keys.add(base)
    keys.add(_PREFIX.sub("", normalize(name)))
    return {k for k in keys if k}


@dataclass(frozen=True)
class Resolution:
    """Outcome of :meth:`NameIndex.resolve`: exactly one of ``id`` or ``candidates`` is set;
    ``ambiguous`` tells a name that matched several ids from one that matched none."""

    id: str | None
    candidates: tuple[str, ...] = ()
    ambiguous: bool = False


class NameIndex:
    """Normalised names -> ids, built from ``(id, name, aliases)`` triples."""

    def __init__(self, entries: Iterable[tuple[str, str, Iterable[str]]]) -> None:
        self._index: dict[str, set[str]] = defaultdict(set)
        self._ids: set[str] = set()
        for gpu_id, name, aliases in entries:
            self._ids.add(gpu_id)
            for key in _keys(gpu_id, name, aliases):
                self._index[key].add(gpu_id)
        self._choices = sorted(self._index)

    def exact(self, text: str) -> frozenset[str]:
        """Ids whose normalised id, name or alias equals ``normalize(text)`` (no fuzzy match);
        empty when none does."""
        return frozenset(self._index.get(normalize(text), ()))

    def similar(self, text: str, *, limit: int = 3) -> tuple[str, ...]:
        """Ids whose keys are closest to ``text`` by Damerau-Levenshtein distance (for "did
        you mean": a transposed model number like ``3900`` -> ``rtx-3090`` first)."""
        found: list[str] = []
        for choice, _score, _ in process.extract(
            normalize(text),
            self._choices,
            scorer=DamerauLevenshtein.normalized_similarity,
            limit=limit * 4,
        ):
            for gpu_id in sorted(self._index[choice]):
                if gpu_id not in found:
                    found.append(gpu_id)
        return tuple(found[:limit])

    def resolve(self, text: str, *, limit: int = 5) -> Resolution:
        """Resolve ``text`` to one id, or say it is ambiguous or unknown (with candidates)."""
        if text in self._ids:
            return Resolution(text)
        key = normalize(text)
        ids = self._index.get(key, set())
        if len(ids) == 1:
            return Resolution(next(iter(ids)))
        if ids:
            return Resolution(None, tuple(sorted(ids)), ambiguous=True)
        found: list[str] = []
        if key:
            for choice, _score, _ in process.extract(
                key, self._choices, scorer=fuzz.WRatio, limit=limit * 3
            ):
                for gpu_id in sorted(self._index[choice]):
                    if gpu_id not in found:
                        found.append(gpu_id)
        return Resolution(None, tuple(found[:limit]))
