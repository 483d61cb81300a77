"""The catalog's vocabulary for the parser: GPU names, profiles, regions, benchmarks and
currencies, built once per catalog view."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from app.catalog.resolve import NameIndex
from app.query.vocabulary import PROFILE_SYNONYMS, REGION_SYNONYMS, longest_first


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
        instances: instance name as typed (lower case; Azure's also without `standard_`) ->
            the catalog's instance (provider, name, GPU id, GPU count); Colab plans and
            instances named like a GPU (Paperspace's `A4000`) are left out.
        providers: the catalog's provider ids.
    """

    gpus: NameIndex
    profiles: Mapping[str, str]
    regions: Mapping[str, str]
    state_codes: Mapping[str, str]
    benchmarks: Mapping[str, str]
    currencies: frozenset[str] = frozenset({"USD"})
    instances: Mapping[str, Instance] = field(default_factory=dict)
    providers: frozenset[str] = frozenset()
    # The place names the parser finds without "in" (whole words of at least 4 letters),
    # longest first, as one pattern: one pass over a question instead of one per name.
    bare_regions: re.Pattern[str] | None = None
    # The profile phrases, longest first, as one pattern (group 1: the phrase), optionally
    # followed by "profile", "usage" or "level".
    profile_words: re.Pattern[str] | None = None

    @classmethod
    def build(
        cls,
        gpus: Iterable[tuple[str, str, Iterable[str]]],
        profiles: Iterable[tuple[str, str]],
        regions: Iterable[tuple[str, str, str]],
        benchmarks: Iterable[tuple[str, str]],
        currencies: Iterable[str] = (),
        instances: Iterable[tuple[str, str, str, int]] = (),
    ) -> Lexicon:
        """Build from catalog rows: GPUs ``(id, name, aliases)``, profiles ``(id, name)``,
        regions ``(id, name, kind)``, benchmarks ``(id, name)`` and cloud instances
        ``(provider, instance type, GPU id, GPU count)``."""
        prof: dict[str, str] = {}
        for pid, name in profiles:
            prof[name.lower()] = pid
            prof[pid.replace("-", " ")] = pid
            for syn in PROFILE_SYNONYMS.get(pid, ()):
                prof[syn] = pid
        reg: dict[str, str] = {}
        codes: dict[str, str] = {}
        for rid, name, kind in regions:
            if kind not in ("country", "us_state", "subnational", "world"):
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
        index = NameIndex(gpus)
        rows = list(instances)
        named = instance_names(rows, index)
        regions_first = longest_first(reg)
        bare = [
            name
            for name in sorted(regions_first, key=len, reverse=True)
            if len(name) >= 4 and (name.isalpha() or " " in name)
        ]
        alternation = "|".join(re.escape(name) for name in bare)
        profiles_first = longest_first(prof)
        phrases = "|".join(re.escape(p) for p in profiles_first)
        return cls(
            index,
            profiles_first,
            regions_first,
            codes,
            longest_first(bench),
            frozenset({"USD", *currencies}),
            named,
            frozenset(row[0] for row in rows),
            re.compile(rf"(?<![\w-])(?:{alternation})(?![\w-])") if bare else None,
            re.compile(rf"(?<![a-z0-9])({phrases})(?:\s+(?:profile|usage|level))?(?![a-z0-9])")
            if profiles_first
            else None,
        )


@dataclass(frozen=True)
class Instance:
    """A cloud instance the catalog prices: its provider, name as the catalog spells it, GPU
    and GPU count."""

    provider: str
    name: str
    gpu_id: str
    gpu_count: int


def instance_names(
    rows: Iterable[tuple[str, str, str, int]], gpus: NameIndex
) -> dict[str, Instance]:
    """Instance names people type -> the instance; a name with no ``_``, ``.`` or ``-`` (or
    one that names a GPU: Paperspace's ``A100-80G``) is left to the GPU names."""
    out: dict[str, Instance] = {}
    for provider, name, gpu_id, count in rows:
        key = name.lower()
        if provider == "colab" or " " in key or gpus.exact(key):
            continue
        if not any(c in key for c in "_.") and not key.count("-") >= 2:
            continue
        inst = Instance(provider, name, gpu_id, count)
        out.setdefault(key, inst)
        if key.startswith("standard_"):
            out.setdefault(key.removeprefix("standard_"), inst)
    return out
