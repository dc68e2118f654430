"""Secrets found and missed, false findings, and the cost of the scan: ``python benchmarks/secrets_bench.py``.

Plants each kind of fake credential (``tests/secret_corpus.py``: built from parts at run time) in a
bare header, front matter, a body and a code fence, and scans a corpus of look-alikes (UUIDs, git
hashes in prose, placeholders such as ``sk-...`` and ``YOUR_API_KEY``). Prints, per kind, what the
scanner of ``ckp_lsp/core/agent/secrets.py`` finds, and beside it detect-secrets 1.5 (Yelp's scanner,
every plugin, the same lines) when it is installed (``pip install detect-secrets==1.5.0``); then
the scan's throughput on generated banks, its share of reading a 10,000-file bank without a cache,
and how a hostile line of 400,000 characters is scanned.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from genbank import prepare

from ckp_lsp.core.agent.secrets import find_secrets
from ckp_lsp.core.format import knowledge
from ckp_lsp.faces.banks import load_bank
from ckp_lsp.faces.collector import paused_collection
from tests.secret_corpus import fake_secrets, look_alikes, placements


def median_time(fn: Any, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def detect_secrets_scanner() -> tuple[Any, float] | None:
    """A function scanning a text with every detect-secrets plugin, and its import time; None
    when detect-secrets is not installed."""
    started = time.perf_counter()
    try:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    except ImportError:
        return None
    plugins = []
    for cls in get_mapping_from_secret_type_to_class().values():
        try:
            plugins.append(cls())
        except TypeError:  # the entropy plugins want their limit: detect-secrets' defaults
            plugins.append(cls(limit=4.5 if "Base64" in cls.__name__ else 3.0))
    imported = time.perf_counter() - started

    def scan(text: str) -> list[tuple[int, str]]:
        out = []
        for n, line in enumerate(text.splitlines()):
            for plugin in plugins:
                for secret in plugin.analyze_line(filename="notes.md", line=line, line_number=n):
                    out.append((n, secret.secret_value or ""))
        return out

    return scan, imported


def corpus_table(peer: Any) -> None:
    planted = [p for seed in (7, 8, 9) for p in fake_secrets(seed)]
    ours: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    theirs: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for p in planted:
        for text in placements(p).values():
            ours[p.kind][1] += 1
            theirs[p.kind][1] += 1
            found = find_secrets(text)
            if any(
                s.kind == p.kind and p.value.strip().splitlines()[-1][-8:] in text[s.start : s.end]
                for s in found
            ) or (
                p.kind in ("CONNECTION_STRING", "SLACK_WEBHOOK", "PRIVATE_KEY")
                and any(s.kind == p.kind for s in found)
            ):
                ours[p.kind][0] += 1
            if peer is not None and peer(text):
                theirs[p.kind][0] += 1
    print("| kind | ckp | detect-secrets 1.5 |")
    print("|---|---:|---:|")
    for kind in ours:
        peer_cell = f"{theirs[kind][0]}/{theirs[kind][1]}" if peer is not None else "not installed"
        print(f"| {kind} | {ours[kind][0]}/{ours[kind][1]} | {peer_cell} |")
    found = sum(v[0] for v in ours.values())
    total = sum(v[1] for v in ours.values())
    peer_found = sum(v[0] for v in theirs.values())
    print(f"\nFound: ckp {found}/{total} ({found / total:.0%})", end="")
    print(f", detect-secrets {peer_found}/{total} ({peer_found / total:.0%})" if peer else "")
    alikes = [line for seed in (7, 8, 9) for line in look_alikes(seed)]
    fp = sum(1 for line in alikes if find_secrets(line))
    print(f"Look-alikes with a finding: ckp {fp}/{len(alikes)}", end="")
    if peer is not None:
        peer_fp = sum(1 for line in alikes if peer(line))
        print(f", detect-secrets {peer_fp}/{len(alikes)}")
    else:
        print()


def throughput(peer: Any, n: int) -> None:
    root = prepare(n, bodies="real")
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(root.rglob("*.md"))]
    size = sum(len(t) for t in texts) / 1e6
    ours = median_time(lambda: [find_secrets(t) for t in texts])
    print(f"\nScan of a {n:,}-file bank ({size:.1f} MB): ckp {ours:.2f} s ({size / ours:.1f} MB/s)", end="")
    if peer is not None:
        sample = texts[: max(1, len(texts) // 20)]
        part = sum(len(t) for t in sample) / 1e6
        theirs = median_time(lambda: [peer(t) for t in sample], runs=1)
        print(f", detect-secrets {part / theirs:.2f} MB/s ({size / part * theirs / ours:.0f}x slower)")
    else:
        print()
    real = knowledge.secret_findings

    def load() -> None:
        with paused_collection():  # as the faces read a bank
            load_bank(root)

    with_scan = median_time(load)
    knowledge.secret_findings = lambda text: []  # type: ignore[assignment]
    try:
        without = median_time(load)
    finally:
        knowledge.secret_findings = real
    print(
        f"Reading the bank without a cache: {with_scan:.2f} s with the scan, {without:.2f} s without "
        f"(+{(with_scan - without) / without:.0%}); a file read from the cache is not scanned again"
    )


def hostile(peer: Any) -> None:
    print("\nOne line of 400,000 characters (and 50,000 for detect-secrets):")
    for unit in ("password=", "ey" + "J", "://a:b@", "s" + "k-", "-----BEGIN RSA PRIVATE KEY-----\n"):
        line = (unit * (400_000 // len(unit) + 1))[:400_000]
        ours = median_time(lambda line=line: find_secrets(line), runs=1)
        cell = f"{unit.strip()!r:40} ckp {ours * 1000:7.0f} ms"
        if peer is not None:
            short = line[:50_000]
            theirs = median_time(lambda short=short: peer(short), runs=1)
            cell += f"   detect-secrets {theirs * 1000:8.0f} ms"
        print(cell)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=10_000, help="files of the generated bank (default 10,000)")
    ap.add_argument("--no-peer", action="store_true", help="leave detect-secrets out even when installed")
    args = ap.parse_args(argv)
    found = None if args.no_peer else detect_secrets_scanner()
    peer = found[0] if found else None
    print(f"load average {os.getloadavg()[0]:.1f}")
    if found:
        print(
            f"detect-secrets: import {found[1]:.2f} s (with requests); ckp's scanner imports the standard library only"
        )
    corpus_table(peer)
    throughput(peer, args.files)
    hostile(peer)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
