"""Generate a large, realistic CKP bank for benchmarks: ``python benchmarks/genbank.py DIR N [SEED]``.

Files have bare headers, 5-12 keywords from a shared vocabulary, 0-3 HIGH and 0-5 MID
relationships, bodies of 1-3 KB, and a few planted unknown and stale relationships.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

FOLDERS = ("projects", "patterns", "domain", "stack", "services", "runbooks", "decisions")


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
QUALIFIERS = _vocabulary(
    """
    service engine module store worker adapter client portal sync index policy model rules
    tracker planner hub
    """
)
VERBS = _vocabulary(
    """
    handles stores validates streams exports caches retries signs schedules reconciles
    """
)


def _concepts(rng: random.Random, n: int) -> list[str]:
    """``n`` unique concept names such as ``billing-ledger`` or ``billing-ledger-7``."""
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < n:
        base = f"{rng.choice(WORDS)}-{rng.choice(QUALIFIERS)}"
        name = base if base not in seen else f"{base}-{len(names)}"
        seen.add(name)
        names.append(name)
    return names


def _keywords(rng: random.Random, concept: str) -> list[str]:
    out = [concept.split("-")[0]]
    while len(out) < rng.randint(5, 12):
        word = rng.choice(WORDS)
        kw = word if rng.random() < 0.6 else f"{word} {rng.choice(QUALIFIERS)}"
        if kw not in out:
            out.append(kw)
    return out


def _body(rng: random.Random, concept: str, keywords: list[str]) -> str:
    size = rng.randint(1000, 3000)
    lines = [f"# {concept}", ""]
    length = 0
    while length < size:
        sentence = (
            f"The {rng.choice(keywords)} {rng.choice(VERBS)} {rng.choice(WORDS)} records for the "
            f"{rng.choice(WORDS)} {rng.choice(QUALIFIERS)} and reports {rng.choice(WORDS)} metrics."
        )
        lines.append(sentence)
        length += len(sentence) + 1
    return "\n".join(lines) + "\n"


def generate(folder: Path, n: int, seed: int = 0) -> list[Path]:
    """Write ``n`` knowledge files (and nothing else) below ``folder``; returns their paths."""
    rng = random.Random(seed)
    names = _concepts(rng, n)
    validated = {c: f"2025-{rng.randint(1, 9):02d}" for c in names}
    paths = []
    for i, concept in enumerate(names):
        others = rng.sample(names, min(len(names), 9))
        others = [o for o in others if o != concept]
        high = others[: rng.randint(0, 3)]
        mid = others[3 : 3 + rng.randint(0, 5)]
        # Relationships were validated after their target, except the planted stale ones.
        rel = {o: "2025-10" for o in high + mid}
        if i % 97 == 0 and mid:
            rel[mid[0]] = "2024-12"  # stale: the target was validated later
        if i % 89 == 0:
            mid = [*mid[:4], f"ghost-{i}"]  # unknown concept
            rel[mid[-1]] = "2025-10"
        keywords = _keywords(rng, concept)
        header = [
            f"CONCEPT:      {concept}",
            f"TLDR:         The {concept.replace('-', ' ')} {rng.choice(VERBS)} {rng.choice(WORDS)} "
            f"data for the {rng.choice(WORDS)} team.",
            f"ANSWERS_WHEN: {', '.join(keywords)}",
        ]
        if high:
            header.append("SIMILAR_HIGH: " + ", ".join(f"{c}:{rel[c]}" for c in high))
        if mid:
            header.append("SIMILAR_MID:  " + ", ".join(f"{c}:{rel[c]}" for c in mid))
        header.append(f"CONFIDENCE:   {rng.choice(('high', 'medium', 'low'))}")
        header.append(f"VALIDATED:    {validated[concept]}")
        sub = folder / FOLDERS[i % len(FOLDERS)] / f"part-{i // 500:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        path = sub / f"{concept}.md"
        path.write_text("\n".join(header) + "\n\n" + _body(rng, concept, keywords), encoding="utf-8")
        paths.append(path)
    return paths


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print("usage: python benchmarks/genbank.py DIR N [SEED]", file=sys.stderr)
        return 2
    folder, n = Path(argv[0]), int(argv[1])
    generate(folder, n, int(argv[2]) if len(argv) > 2 else 0)
    print(f"Wrote {n} knowledge files to {folder}.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
