"""Names the parser reads before the rest (:mod:`app.query.parser`): cloud instances by name
(``p4d.24xlarge``, ``gpu_8x_h100_sxm5``, ``a3-highgpu-8g``, ``ND96isr_H100_v5``), clouds the
catalog does not price (``vast.ai``: declined with the reason), and near-misses of GPU and
provider names (``3o90``, ``a1oo``, ``runpd``: read, and said in ``corrected``).

Each step reads the working text, blanks what it understood and records it on the
:class:`~app.models.interpretation.Interpretation`; nothing here guesses silently.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz, process

from app.models.interpretation import GpuMention, Interpretation
from app.query.lexicon import Instance, Lexicon
from app.query.vocabulary import PROVIDERS, STOPWORDS, WORD
from app.query.work import Work

# A token that may be an instance name: letters, digits and the separators clouds use.
_TOKEN = re.compile(r"(?<![\w.+-])[a-z0-9][a-z0-9._+-]*[a-z0-9]")

# Instance names by each cloud's naming scheme (for names the catalog does not hold):
# AWS ``p4d.24xlarge``; GCP ``a3-highgpu-8g``; Azure ``nd96isr_h100_v5``; Lambda
# ``gpu_8x_h100_sxm5``; RunPod ``8x_h100-sxm_secure``.
_SCHEMES: dict[str, re.Pattern[str]] = {
    "aws": re.compile(r"[a-z]{1,3}\d+[a-z]*(?:-[a-z0-9]+)?\.\d*x?(?:large|metal)"),
    "gcp": re.compile(r"[a-z]\d-(?:high|ultra|mega|edge)gpu-(\d+)g"),
    "azure": re.compile(r"(?:standard_)?n[cdv]\d+[a-z]*(?:_[a-z0-9]+)*_v\d"),
    "lambda": re.compile(r"gpu_(\d+)x_[a-z0-9_]+"),
    "runpod": re.compile(r"(\d+)x_[a-z0-9-]+_(?:secure|community)"),
}

# GPU clouds people name that the catalog has no prices for (lower case -> as written).
UNLISTED_PROVIDERS = {
    "coreweave": "CoreWeave",
    "tensordock": "TensorDock", "hetzner": "Hetzner", "ovhcloud": "OVHcloud", "ovh": "OVHcloud",
    "vultr": "Vultr", "fluidstack": "FluidStack", "together ai": "Together AI",
    "together.ai": "Together AI", "modal labs": "Modal", "modal.com": "Modal",
    "salad": "Salad", "genesis cloud": "Genesis Cloud",
    "crusoe": "Crusoe", "scaleway": "Scaleway",
    "sagemaker": "SageMaker", "alibaba cloud": "Alibaba Cloud", "ibm cloud": "IBM Cloud",
    "linode": "Linode", "kaggle kernels": "Kaggle",
    "lightning ai": "Lightning AI", "brev": "Brev",
}  # fmt: skip
_UNLISTED = "|".join(re.escape(k) for k in sorted(UNLISTED_PROVIDERS, key=len, reverse=True))

# One-word provider names for typo matching ("runpd", "lamda", "paperspcae").
_PROVIDER_WORDS = sorted(k for k in PROVIDERS if " " not in k and len(k) >= 5)
# Words close to a provider name that are not one.
_NOT_PROVIDERS = frozenset({"lambdas", "gradients", "amazing", "collaborate", "azures"})


def _with_count(it: Interpretation, inst: Instance, said: str, count: int | None = None) -> None:
    """The cloud side is ``inst`` (``count`` GPUs: several instances when more than its own)."""
    c = it.cloud
    if c.instance_type is not None:
        it.declined.append(f"'{said}': one instance per question; used {c.instance_type}")
        return
    c.instance_type, c.provider = inst.name, c.provider or inst.provider
    c.gpu = GpuMention(said, (inst.gpu_id,), count or inst.gpu_count)


def instances(w: Work, it: Interpretation, lex: Lexicon) -> None:
    """Instance names: the catalog's (any provider), and names in a cloud's scheme that the
    catalog lacks: a same-family 1-GPU sibling priced as N instances when the name gives the
    GPU count (``a3-highgpu-8g`` -> 8x ``a3-highgpu-1g``), else declined with the nearest."""
    for m in list(_TOKEN.finditer(w.text)):
        token = m.group(0)
        if not any(sep in token for sep in "._-"):
            continue  # every instance name has a separator (the lexicon keeps only those)
        inst = lex.instances.get(token)
        if inst is not None:
            _with_count(it, inst, token)
            w.blank(m.start(), m.end())
            continue
        scheme = next((p for p, rx in _SCHEMES.items() if rx.fullmatch(token)), None)
        if scheme is None:
            continue
        w.blank(m.start(), m.end())
        sibling, count = _sibling(token, scheme, lex)
        if sibling is not None:
            _with_count(it, sibling, token, count)
            it.declined.append(
                f"{scheme} {token} is not in the catalog: priced as {count} x {sibling.name} "
                f"({sibling.gpu_count}x {sibling.gpu_id} each)"
            )
            continue
        near = process.extractOne(
            token, [k for k, i in lex.instances.items() if i.provider == scheme], scorer=fuzz.ratio
        )
        hint = ""
        if near:
            i = lex.instances[near[0]]
            hint = f"; nearest: {i.name} ({i.gpu_count}x {i.gpu_id})"
        it.problems.append(f"{scheme} instance '{token}' is not in the catalog{hint}")


def _sibling(token: str, scheme: str, lex: Lexicon) -> tuple[Instance | None, int]:
    """The catalog's 1-GPU instance of ``token``'s family and the GPUs ``token`` names."""
    m = _SCHEMES[scheme].fullmatch(token)
    if m is None or not m.groups() or not m.group(1):
        return None, 0
    count = int(m.group(1))
    one = token[: m.start(1)] + "1" + token[m.end(1) :]
    inst = lex.instances.get(one)
    if inst is None or inst.gpu_count != 1 or count < 1:
        return None, 0
    return inst, count


# How a cloud the catalog lacks is declined (the answers look for it to name what was used).
UNLISTED = "is not in the catalog (its clouds:"


def unlisted_providers(w: Work, it: Interpretation, lex: Lexicon) -> None:
    """A cloud the catalog does not price: declined, naming the clouds it does."""
    for m in w.take(rf"(?<![\w.]){_UNLISTED}(?![\w])"):
        name = UNLISTED_PROVIDERS[m.group(0)]
        listed = ", ".join(sorted(lex.providers))
        it.declined.append(f"{name} {UNLISTED} {listed})")


def provider_typos(w: Work, it: Interpretation) -> None:
    """A word within a typo of a provider's name (``runpd``, ``lamda``): read as it, said."""
    for m in WORD.finditer(w.text):
        word = m.group(0)
        if len(word) < 4 or word in STOPWORDS or word in _NOT_PROVIDERS or word in PROVIDERS:
            continue
        if any(ch.isdigit() for ch in word):
            continue
        best = process.extractOne(word, _PROVIDER_WORDS, scorer=fuzz.ratio, score_cutoff=82)
        if best is None:
            continue
        provider = PROVIDERS[best[0]]
        w.blank(m.start(), m.end())
        if it.cloud.provider is None:
            it.cloud.provider = provider
            it.corrected.append(f"'{word}' read as {provider}")


def gpu_typos(w: Work, it: Interpretation, lex: Lexicon) -> None:
    """A model number typed with the letter o for zero (``3o90``, ``4o9o``, ``a1oo``): the
    working text gets the digit, and the answer says so."""
    for m in list(WORD.finditer(w.text)):
        word = m.group(0)
        if "o" not in word or not any(ch.isdigit() for ch in word):
            continue
        fixed = word.replace("o", "0")
        if lex.gpus.exact(fixed) or lex.gpus.exact(fixed.removesuffix("s")):
            w.replace(m.start(), fixed)
            it.corrected.append(f"'{word}' read as {fixed}")
