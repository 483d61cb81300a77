"""The catalog's vocabulary for the parser: GPU names, profiles, regions, benchmarks and
currencies, built once per catalog view."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

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
    """

    gpus: NameIndex
    profiles: Mapping[str, str]
    regions: Mapping[str, str]
    state_codes: Mapping[str, str]
    benchmarks: Mapping[str, str]
    currencies: frozenset[str] = frozenset({"USD"})
    # The place names the parser finds without "in" (whole words of at least 4 letters),
    # longest first, as one pattern: one pass over a question instead of one per name.
    bare_regions: re.Pattern[str] | None = None

    @classmethod
    def build(
        cls,
        gpus: Iterable[tuple[str, str, Iterable[str]]],
        profiles: Iterable[tuple[str, str]],
        regions: Iterable[tuple[str, str, str]],
        benchmarks: Iterable[tuple[str, str]],
        currencies: Iterable[str] = (),
    ) -> Lexicon:
        """Build from catalog rows: GPUs ``(id, name, aliases)``, profiles ``(id, name)``,
        regions ``(id, name, kind)`` and benchmarks ``(id, name)``."""
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
        regions_first = longest_first(reg)
        bare = [
            name
            for name in sorted(regions_first, key=len, reverse=True)
            if len(name) >= 4 and (name.isalpha() or " " in name)
        ]
        alternation = "|".join(re.escape(name) for name in bare)
        return cls(
            NameIndex(gpus),
            longest_first(prof),
            regions_first,
            codes,
            longest_first(bench),
            frozenset({"USD", *currencies}),
            re.compile(rf"(?<![\w-])(?:{alternation})(?![\w-])") if bare else None,
        )
