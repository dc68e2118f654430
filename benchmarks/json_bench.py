"""Peak memory of ``ckp check`` on a bank with many findings, JSON next to text:
``python benchmarks/json_bench.py [--files 100000] [--code DIR]``.

The bank is ``genbank``'s with every relationship's date taken off, so each entry is a CKP046
(about 3.75 findings a file); it is kept under ``benchmarks/.banks/``. Each format runs once,
without the cache, in a fresh process; ``--code`` measures another checkout of ``ckp_lsp``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import genbank  # noqa: E402

DATED = re.compile(r"^(SIMILAR_(?:HIGH|MID):\s*)(.*)$", re.MULTILINE)


def undated(n: int) -> Path:
    """``genbank``'s bank of ``n`` files with the dates of every relationship removed."""
    home = genbank.BANKS / f"n{n}-seed0-v{genbank.VERSION}-undated"
    bank = home / "memory-bank"
    if (home / ".complete").exists():
        return bank
    genbank.generate(bank, n)
    for path in bank.rglob("*.md"):
        text = path.read_text(encoding="utf-8")
        path.write_text(
            DATED.sub(lambda m: m[1] + re.sub(r":\d{4}-\d{2}(?:-\d{2})?", "", m[2]), text), encoding="utf-8"
        )
    (home / ".complete").touch()
    return bank


def measure(bank: Path, fmt: str, code: Path | None) -> tuple[float, float, int, str]:
    """Wall seconds, peak RSS (MB), bytes written and their SHA-256 of one ``ckp check``."""
    env = {**os.environ, "CKP_NO_CACHE": "1"}
    if code is not None:
        env["PYTHONPATH"] = str(code)
    out = bank.parent / f"check.{fmt}"
    cmd = [sys.executable, "-m", "ckp_lsp.cli.main", "check", "--no-cache", "--format", fmt, str(bank)]
    start = time.perf_counter()
    with out.open("wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.DEVNULL, env=env)
        _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    data = out.read_bytes()
    return wall, usage.ru_maxrss / 1024, len(data), hashlib.sha256(data).hexdigest()[:16]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--files", type=int, default=100_000)
    p.add_argument("--code", type=Path, default=None, help="measure the ckp_lsp of this source tree instead")
    args = p.parse_args()
    bank = undated(args.files)
    print(f"{args.files:,} files; load average {os.getloadavg()[0]:.1f}")
    print("| format | wall | peak RSS | output | sha256 |")
    print("|---|---:|---:|---:|---|")
    peaks = {}
    for fmt in ("text", "json"):
        wall, peak, size, digest = measure(bank, fmt, args.code)
        peaks[fmt] = peak
        print(f"| {fmt} | {wall:.1f} s | {peak:,.0f} MB | {size / 1e6:,.1f} MB | {digest} |")
    print(f"JSON over text: {peaks['json'] - peaks['text']:+,.0f} MB ({peaks['json'] / peaks['text']:.2f}×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
