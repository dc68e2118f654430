"""Generate a large, realistic CKP bank for benchmarks: ``python benchmarks/genbank.py DIR N [SEED]``.

Every file has a bare header and a Markdown body of 1-3 KB (headings, prose, a list, sometimes a
code block, and links to the files it relates to). Concepts are ``<domain>-<codename>``, each
with its own codename, and most keywords are specific to the file (the codename, 2-word phrases
built on it); only about one file in twenty also claims one of a dozen shared domain words, so
the ambiguous-keyword check (CKP032) fires on a few percent of the files, as in a real bank.

Planted for the checks and the editor features:

- about 1 % of the files have a stale relationship (CKP050) and about 1 % an unknown one (CKP041);
  the body links to every related file, so an unknown concept is also a broken Markdown link,
  which a link checker finds;
- ``platform-core``, the first concept, is named by the SIMILAR_MID of up to 1,000 files (a
  rename that touches 1,000 files).

``bodies="real"`` (``--bodies real`` in ``run.py``) draws body sizes as real banks have them
instead: a median of about 5 KB (log-normal), one file in a hundred of 20–100 KB, and one in
5,000 (at least one from 1,000 files on) of about 1 MB.

Generation is deterministic for a given N, seed and kind of bodies. ``prepare(n, seed)`` caches a bank, with its
``_index.md``, under ``benchmarks/.banks/`` (git-ignored).
"""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

from ckp_lsp.faces.banks import load_bank

#: bump when the output changes, so cached banks are generated again
VERSION = 2
BANKS = Path(__file__).resolve().parent / ".banks"
FOLDERS = ("projects", "patterns", "domain", "stack", "services", "runbooks", "decisions")
PER_FOLDER = 500
HUB = "platform-core"
HUB_REFERENCES = 1000


def _vocabulary(text: str) -> tuple[str, ...]:
    return tuple(text.split())


WORDS = _vocabulary(
    """
    account api audit auth backup batch billing broker bucket budget cache canary catalog
    certificate checkout cluster compliance config consent container contract cost cron
    dashboard database deploy device discount dns document email embedding encryption endpoint
    event export feature firewall forecast gateway geocoding graph health import incident
    inventory invoice kafka kubernetes label latency ledger license logging login mapping
    marketplace metric migration mobile monitoring notification oauth onboarding order partner
    password payment permission pipeline pricing privacy profile queue quota ranking
    recommendation refund region release replica report retention review risk role routing
    sandbox scheduler schema search secret session shipping signup sitemap snapshot storage
    subscription support tax telemetry tenant ticket timeline token tracing translation upload
    user vault versioning warehouse webhook workflow
    """
)
#: domain words many concepts claim: the only source of ambiguous keywords by design
SHARED = _vocabulary("api database kubernetes deploy webhook payment security monitoring cache search")
SHARED_RATE = 0.04
QUALIFIERS = _vocabulary(
    """
    service engine module store worker adapter client portal sync index policy model rules
    tracker planner hub
    """
)
ASPECTS = _vocabulary(
    """
    retries limits schema rollout alerts backfill outage runbook migration contract latency
    permissions sharding quotas dashboards timeouts versioning fixtures replay throttling
    pagination idempotency caching onboarding ownership costs sla incidents
    """
)
VERBS = _vocabulary(
    """
    handles stores validates streams exports caches retries signs schedules reconciles
    """
)
_ONSETS = _vocabulary("b c d f g k l m n p r s t v z br kr st tr")
_NUCLEI = _vocabulary("a e i o u ai")
_CODAS = ("", "", "", "n", "r", "s", "x", "l")


def _codenames(rng: random.Random, n: int) -> list[str]:
    """``n`` distinct made-up project codenames (``zorvex``, ``kalimba`` …)."""
    syllables = [o + v for o in _ONSETS for v in _NUCLEI]
    s, c = len(syllables), len(_CODAS)
    space = s * s * s * c
    names = []
    for k in rng.sample(range(space), n):
        k, coda = divmod(k, c)
        k, a = divmod(k, s)
        k, b = divmod(k, s)
        parts = syllables[k % s] + syllables[b] + (syllables[a] if k % 3 else "")
        names.append(parts + _CODAS[coda])
    # Two-syllable names may collide: make them distinct by index, deterministically.
    seen: set[str] = set()
    out = []
    for i, name in enumerate(names):
        if name in seen:
            name = f"{name}{i}"
        seen.add(name)
        out.append(name)
    return out


def _keywords(rng: random.Random, domain: str, codename: str, qualifier: str) -> list[str]:
    out = [codename, f"{domain} {codename}", f"{codename} {qualifier}"]
    for aspect in rng.sample(ASPECTS, rng.randint(2, 8)):
        out.append(f"{codename} {aspect}")
    if rng.random() < SHARED_RATE:
        out.insert(rng.randint(1, len(out)), rng.choice(SHARED))
    return out


def _path(i: int, concept: str) -> str:
    return f"{FOLDERS[i % len(FOLDERS)]}/part-{i // (PER_FOLDER * len(FOLDERS)):03d}/{concept}.md"


BODIES = ("uniform", "real")


def real_size(rng: random.Random, i: int, n: int) -> int:
    """A body size as in real banks: log-normal around 5 KB, a long tail, a few of 1 MB."""
    if n >= 1000 and i % 5000 == 777:
        return 1_000_000
    if rng.random() < 0.01:
        return int(20_000 * 5 ** rng.random())  # 20-100 KB, log-uniform
    return min(int(rng.lognormvariate(8.35, 0.25)), 20_000)  # median e^8.35: a 5 KB file


def _body(
    rng: random.Random,
    concept: str,
    domain: str,
    codename: str,
    links: list[tuple[str, str]],
    size: int | None = None,
) -> str:
    size = rng.randint(1000, 3000) if size is None else size
    title = f"{codename.capitalize()} {domain}"
    out = [f"# {title}", ""]
    length = 0
    section = 0
    while length < size:
        section += 1
        sentences = [
            f"The {codename} {rng.choice(QUALIFIERS)} {rng.choice(VERBS)} {rng.choice(WORDS)} records "
            f"for the {rng.choice(WORDS)} {rng.choice(QUALIFIERS)} and reports {rng.choice(ASPECTS)}."
            for _ in range(rng.randint(2, 5))
        ]
        para = " ".join(sentences)
        out += [para, ""]
        length += len(para)
        if section == 1 and links:
            see = ", ".join(f"[{name}]({target})" for name, target in links)
            out += [f"Related: {see}.", ""]
        if section % 2 == 1:
            heading = f"## {rng.choice(ASPECTS).capitalize()}"
            items = [
                f"- `{codename}.{rng.choice(WORDS)}` {rng.choice(VERBS)} {rng.choice(WORDS)}"
                for _ in range(3)
            ]
            out += [heading, "", *items, ""]
            length += 120
        elif rng.random() < 0.3:
            out += ["```yaml", f"{codename}:", f"  {rng.choice(WORDS)}: {rng.randint(1, 500)}", "```", ""]
            length += 40
    return "\n".join(out)


def generate(folder: Path, n: int, seed: int = 0, bodies: str = "uniform") -> list[Path]:
    """Write ``n`` knowledge files (and nothing else) below ``folder``; returns their paths."""
    rng = random.Random(seed)
    sizes = random.Random(seed + 1)
    codenames = _codenames(rng, n)
    domains = [rng.choice(WORDS) for _ in range(n)]
    names = [f"{d}-{c}" for d, c in zip(domains, codenames, strict=True)]
    if n:
        names[0] = HUB
    paths = [_path(i, c) for i, c in enumerate(names)]
    validated = [f"2025-{rng.randint(1, 9):02d}" for _ in range(n)]
    step = max(1, (n - 1) // HUB_REFERENCES)
    hub_refs = set(range(1, n, step)[:HUB_REFERENCES])
    made: set[Path] = set()
    out = []
    for i, concept in enumerate(names):
        # Related concepts mostly come from the same neighbourhood (a domain's cluster of files).
        near = [j for j in (rng.randint(max(0, i - 60), min(n - 1, i + 60)) for _ in range(9)) if j != i]
        others = list(dict.fromkeys(names[j] for j in near))
        high = others[: rng.randint(0, 3)]
        mid = others[3 : 3 + rng.randint(0, 5)]
        if i in hub_refs and HUB not in high:
            mid = [HUB, *[m for m in mid if m != HUB][:4]]
        # Relationships were validated after their target, except the planted stale ones.
        dates = {o: "2025-10" for o in high + mid}
        if i % 97 == 3 and mid:
            dates[mid[-1]] = "2024-12"  # stale: the target was validated later
        if i % 89 == 5:
            ghost = f"ghost-{codenames[i]}"
            mid = [*mid[:4], ghost]
            dates[ghost] = "2025-10"
        where = {names[j]: paths[j] for j in near}
        where[HUB] = paths[0]
        links = [(c, "../../" + where.get(c, f"{FOLDERS[0]}/{c}.md")) for c in high + mid]
        qualifier = rng.choice(QUALIFIERS)
        keywords = _keywords(rng, domains[i], codenames[i], qualifier)
        header = [
            f"CONCEPT:      {concept}",
            f"TLDR:         The {codenames[i]} {qualifier} {rng.choice(VERBS)} {domains[i]} "
            f"data for the {rng.choice(WORDS)} team.",
            f"ANSWERS_WHEN: {', '.join(keywords)}",
        ]
        if high:
            header.append("SIMILAR_HIGH: " + ", ".join(f"{c}:{dates[c]}" for c in high))
        if mid:
            header.append("SIMILAR_MID:  " + ", ".join(f"{c}:{dates[c]}" for c in mid))
        header.append(f"CONFIDENCE:   {rng.choice(('high', 'medium', 'low'))}")
        header.append(f"VALIDATED:    {validated[i]}")
        path = folder / paths[i]
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        size = real_size(sizes, i, n) if bodies == "real" else None
        body = _body(rng, concept, domains[i], codenames[i], links, size)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(header) + "\n\n" + body + "\n")
        out.append(path)
    return out


def prepare(n: int, seed: int = 0, bodies: str = "uniform") -> Path:
    """A cached ``memory-bank`` of ``n`` generated files with a current ``_index.md``."""
    home = BANKS / f"n{n}-seed{seed}-v{VERSION}{'' if bodies == 'uniform' else '-' + bodies}"
    bank = home / "memory-bank"
    marker = home / ".complete"
    if marker.exists():
        return bank
    shutil.rmtree(home, ignore_errors=True)
    generate(bank, n, seed, bodies)
    from ckp_lsp.core.format.index import update_index_text

    loaded = load_bank(bank)
    (bank / "_index.md").write_text(update_index_text(None, loaded), encoding="utf-8")
    marker.touch()
    return bank


def main(argv: list[str]) -> int:
    bodies = "uniform"
    if argv and argv[0].startswith("--bodies="):
        bodies = argv.pop(0).split("=", 1)[1]
    if len(argv) not in (2, 3) or bodies not in BODIES:
        print("usage: python benchmarks/genbank.py [--bodies=uniform|real] DIR N [SEED]", file=sys.stderr)
        return 2
    folder, n = Path(argv[0]), int(argv[1])
    generate(folder, n, int(argv[2]) if len(argv) > 2 else 0, bodies)
    print(f"Wrote {n} knowledge files to {folder}.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
