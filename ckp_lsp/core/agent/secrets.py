"""Credentials in a knowledge file (SPEC §10): found here, reported as CKP080 and redacted by
``redaction``.

The rules are those of the maintained scanners (detect-secrets' plugins, gitleaks' rule set):
provider keys and tokens by their documented prefixes and lengths, private key blocks, URLs
with a password, and high-entropy values assigned to a secret-like name. They are written here
as checks of bounded pieces so that every one runs in time linear in the text: a line is cut
into tokens by one regular expression of a single character class, each token is matched from
its start and from each provider prefix ``str.find`` finds inside it (a bounded number of
places: ``https://ghp_…@host``, ``cfg.AKIA…``), and every other pattern is anchored at a literal
found by ``str.find`` and reads a bounded number of characters from there (detect-secrets' own JWT and keyword patterns take
seconds on one hostile line of 40,000 characters).
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections import Counter

from ckp_lsp.core.format.records import Frozen
from ckp_lsp.core.format.text import line_offsets, split_lines

#: a pattern compiled when first used: most texts never reach most rules, and a one-shot process
#: (the prompt hook) would spend more compiling them all than finding secrets
_re = functools.cache(re.compile)

#: what a knowledge file writes on a secret's line (or the line above) to say it is none
ALLOW_COMMENT = "<!-- ckp: allow-secret -->"
_ALLOW = r"<!--[ \t]{0,4}ckp:[ \t]{0,4}allow-secret[ \t]{0,4}-->"

#: a run of the characters keys and tokens are written in (one class: each character is read once)
_TOKEN = r"[A-Za-z0-9_+/.~-]{16,}={0,2}"
#: a token longer than this is no credential but a blob; only its first characters are matched
_TOKEN_MAX = 1024


class TokenRule(Frozen):
    """A provider's key or token: its prefixes and the whole token's shape."""

    _fields = ("kind", "prefixes", "shape", "entropy")
    __slots__ = _fields

    def __init__(self, kind: str, prefixes: tuple[str, ...], shape: str, entropy: float = 3.0) -> None:
        self.kind = kind
        self.prefixes = prefixes
        self.shape = shape  # a regular expression, compiled when a token starts with one of the prefixes
        self.entropy = entropy  # bits per character below which it is a placeholder (`ghp_xxxx…`)


# Ordered: the first rule whose prefix a token starts with and whose shape it has names it.
# Every shape is a fixed prefix and bounded runs of one class, matched at the token's start only.
TOKEN_RULES = (
    TokenRule("ANTHROPIC_API_KEY", ("sk-ant-",), r"sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,120}"),
    TokenRule(
        "OPENAI_API_KEY",
        ("sk-",),
        r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,200}",
        entropy=3.5,
    ),
    TokenRule(
        "AWS_ACCESS_KEY_ID",
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
        r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}",
    ),
    TokenRule("GITHUB_TOKEN", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"gh[pousr]_[A-Za-z0-9]{36}"),
    TokenRule("GITHUB_TOKEN", ("github_pat_",), r"github_pat_[A-Za-z0-9_]{82}"),
    TokenRule("GITLAB_TOKEN", ("glpat-", "gldt-", "glrt-"), r"gl(?:pat|dt|rt)-[A-Za-z0-9_-]{20,50}"),
    TokenRule(
        "SLACK_TOKEN",
        ("xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxo-"),
        r"xox[bpaors]-[A-Za-z0-9-]{10,100}",
    ),
    TokenRule(
        "SLACK_WEBHOOK",
        ("hooks.slack.com/",),
        r"hooks\.slack\.com/services/T[A-Za-z0-9_]{6,20}/B[A-Za-z0-9_]{6,20}/[A-Za-z0-9_]{16,40}",
    ),
    TokenRule("STRIPE_KEY", ("sk_live_", "rk_live_"), r"[rs]k_live_[0-9a-zA-Z]{24,99}"),
    TokenRule("GOOGLE_API_KEY", ("AIza",), r"AIza[0-9A-Za-z_-]{35}"),
    TokenRule("SENDGRID_API_KEY", ("SG.",), r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    TokenRule("NPM_TOKEN", ("npm_",), r"npm_[A-Za-z0-9]{36}"),
    TokenRule("PYPI_TOKEN", ("pypi-AgE",), r"pypi-AgE[A-Za-z0-9_-]{50,300}"),
    TokenRule("HUGGINGFACE_TOKEN", ("hf_",), r"hf_[A-Za-z]{34}"),
    TokenRule(
        "JWT",
        ("eyJ",),
        r"eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,4000}\.[A-Za-z0-9_-]{16,1000}",
    ),
)
_PREFIXES = tuple({p for r in TOKEN_RULES for p in r.prefixes})

#: a word that names a secret when it ends an identifier (``DB_PASSWORD``, ``clientSecret``)
SECRET_WORDS = {
    "password": "PASSWORD",
    "passwd": "PASSWORD",
    "pass": "PASSWORD",
    "pwd": "PASSWORD",
    "passphrase": "PASSWORD",
    "secret": "SECRET",
    "token": "TOKEN",
    "apikey": "API_KEY",
    "credential": "CREDENTIAL",
    "credentials": "CREDENTIAL",
    "accountkey": "ACCESS_KEY",
}
#: ``key`` names a secret after one of these (``api_key``, ``aws_secret_access_key``)
KEY_QUALIFIERS = {"api": "API_KEY", "access": "ACCESS_KEY", "secret": "SECRET", "private": "PRIVATE_KEY",
                  "auth": "API_KEY", "client": "API_KEY", "master": "SECRET", "signing": "SECRET",
                  "encryption": "SECRET", "account": "ACCESS_KEY", "service": "API_KEY"}  # fmt: skip
#: where an identifier may name a secret: a literal the words above contain
_NAME_HINT = r"(?i)pass|pwd|secret|token|key|credential"
_IDENT_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_IDENT_MAX = 64
#: after the name: its closing quote, the assignment, the value (every run bounded)
_ASSIGN = r"""["'\]]{0,2}[ \t]{0,3}(?::=|=>|==?|:)[ \t]{0,3}(["'`]?)([^\s"'`,;&<>()\[\]{}]{8,256})"""
_WORD_SPLIT = r"[_.-]+|(?<=[a-z0-9])(?=[A-Z])"
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
#: values that show where a secret goes rather than being one
_PLACEHOLDER_PARTS = ("your", "example", "placeholder", "changeme", "change_me", "redacted", "xxxx", "****",
                      "....", "dummy", "sample", "replace", "insert", "<", "${", "{{", "%(", "env.", "environ",
                      "getenv", "secrets.", "vault:", "here")  # fmt: skip
_URL_STOP = frozenset(" \t/?#\"'<>()[]{}`\\")
_URL_MAX = 512
_KEY_BLOCK_LINES = 200


class Secret(Frozen):
    """A credential found in a text: its kind and where it is (offsets into the text)."""

    _fields = ("kind", "start", "end")
    __slots__ = _fields

    def __init__(self, kind: str, start: int, end: int) -> None:
        self.kind = kind
        self.start = start
        self.end = end


def entropy(s: str) -> float:
    """Shannon entropy of ``s`` in bits per character."""
    if not s:
        return 0.0
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _placeholder_like(value: str) -> bool:
    low = value.lower()
    if value[0] in "$%<{*@" or len(set(value)) <= 3:
        return True
    return any(p in low for p in _PLACEHOLDER_PARTS)


#: what may follow a token inside a run of token characters (a path's or a name's next part)
_AFTER_TOKEN = frozenset("./~+=")
#: prefixes distinctive enough to be found right after a letter or digit (``xghp_…``)
_GLUED = tuple(p for p in _PREFIXES if len(p) >= 4 and p[-1] in "_-")
#: the places inside one run where a token is looked for (each a bounded match)
_STARTS_MAX = 16


def _token_at(run: str, at: int) -> tuple[str, int] | None:
    """The kind and end of the token that starts at ``at`` in ``run``: the shape matched there and
    followed by the run's end or a separator, never by more characters of the token."""
    for rule in TOKEN_RULES:
        if not run.startswith(rule.prefixes, at):
            continue
        m = _re(rule.shape).match(run, at)
        if m is None or (m.end() < len(run) and run[m.end()] not in _AFTER_TOKEN):
            continue
        token = m.group()
        if "EXAMPLE" in token or _placeholder_like(token) or entropy(token) < rule.entropy:
            return None
        return rule.kind, m.end()
    return None


def _starts(run: str) -> list[int]:
    """Where a token may start in ``run``: its start, and each prefix found inside it after a
    separator (``https://ghp_…``, ``cfg.AKIA…``) or, for a distinctive one, after any character."""
    found = {0} if run.startswith(_PREFIXES) else set()
    for prefix in _PREFIXES:
        at = run.find(prefix, 1)
        while at > 0 and len(found) < _STARTS_MAX:
            if not run[at - 1].isalnum() or prefix in _GLUED:
                found.add(at)
            at = run.find(prefix, at + 1)
    return sorted(found)


def _tokens(line: str, base: int, out: list[Secret]) -> None:
    for m in _re(_TOKEN).finditer(line):
        run = m.group()[:_TOKEN_MAX]
        done = 0
        for at in _starts(run):
            hit = _token_at(run, at) if at >= done else None
            if hit is not None:
                kind, done = hit
                out.append(Secret(kind, base + m.start() + at, base + m.start() + done))


def _name_kind(name: str) -> str | None:
    words = [w.lower() for w in _re(_WORD_SPLIT).split(name) if w]
    if not words:
        return None
    last = words[-1]
    if last in SECRET_WORDS:
        return SECRET_WORDS[last]
    if last == "key" and len(words) > 1:
        return KEY_QUALIFIERS.get(words[-2])
    if last.endswith("key") and last[:-3] in KEY_QUALIFIERS:  # ``apikey``, ``secretkey``
        return KEY_QUALIFIERS[last[:-3]]
    return None


def _value_is_secret(value: str, kind: str) -> bool:
    if _placeholder_like(value) or _re(_UUID).fullmatch(value) or value.startswith(("http://", "https://")):
        return False
    has_letter = any(c.isalpha() for c in value)
    has_other = any(not c.isalpha() for c in value)
    if not (has_letter and has_other):
        return False  # a word (``stored_in_vault`` has ``_``: the entropy decides) or a number
    bare = value.replace(".", "").replace("_", "").replace("-", "")
    if bare.isalpha() and (bare.islower() or bare.isupper() or "." in value):
        return (
            False  # words (``generate-a-secure-key``, ``bearer_token``) or a reference (``config.db.pass``)
        )
    return entropy(value) >= (2.5 if kind == "PASSWORD" else 3.0)


def _assignments(line: str, base: int, out: list[Secret]) -> None:
    done = -1
    for m in _re(_NAME_HINT).finditer(line):
        if m.start() < done:
            continue
        start, end = m.start(), m.end()
        floor = max(0, start - _IDENT_MAX)
        while start > floor and line[start - 1] in _IDENT_CHARS:
            start -= 1
        ceiling = min(len(line), end + _IDENT_MAX)
        while end < ceiling and line[end] in _IDENT_CHARS:
            end += 1
        done = end
        kind = _name_kind(line[start:end].strip(".-"))
        if kind is None:
            continue
        a = _re(_ASSIGN).match(line, end)
        if a is None:
            continue
        value = a.group(2)
        if a.group(1) == "" and value.endswith("."):
            value = value.rstrip(".")  # the end of a sentence
        if len(value) >= 8 and _value_is_secret(value, kind):
            out.append(Secret(kind, base + a.start(2), base + a.start(2) + len(value)))
            done = a.start(2) + len(value)


def _urls(line: str, base: int, out: list[Secret]) -> None:
    at = line.find("://")
    while at >= 0:
        end, ceiling = at + 3, min(len(line), at + 3 + _URL_MAX)
        while end < ceiling and line[end] not in _URL_STOP:
            end += 1
        authority = line[at + 3 : end]
        cut = authority.rfind("@")
        if cut > 0 and ":" in authority[:cut]:
            user, _, password = authority[:cut].partition(":")
            if (
                len(password) >= 3
                and not _placeholder_like(password)
                and password.lower()
                not in (
                    "pass",
                    "password",
                    "pwd",
                    "secret",
                    user.lower(),
                )
            ):
                start = at + 3 + len(user) + 1
                out.append(Secret("CONNECTION_STRING", base + start, base + start + len(password)))
        at = line.find("://", max(end, at + 3))


def _private_key_end(lines: list[str], ends: list[int], n: int) -> int | None:
    """The line that ends the private key block beginning on line ``n`` (``ends``: the lines
    holding ``-----END``, sorted), or None."""
    k = bisect.bisect_right(ends, n)
    while k < len(ends) and ends[k] < n + _KEY_BLOCK_LINES:
        s = lines[ends[k]].strip().strip("`\"'")
        if s.startswith("-----END ") and s.endswith("-----"):
            return ends[k]
        k += 1
    return None


_KEY_BEGIN = r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"


def _key_begin(line: str) -> int:
    """Where a private key block's first line starts in ``line``, or -1."""
    at = line.find("-----BEGIN ")
    while at >= 0:
        if _re(_KEY_BEGIN).match(line, at):
            return at
        at = line.find("-----BEGIN ", at + 11)
    return -1


#: where a provider's token may be: each pattern begins at one character (``_``, ``A``, ``-``, ``.``,
#: ``J``), which the regex engine looks for as ``str.find`` does, and looks back from it at the
#: prefix; seven scans of a text where one ``str.find`` per prefix took twenty-four
_TOKEN_HINTS = tuple(
    re.compile(p)
    for p in (
        r"_(?<=[kbmfpousr]_)",  # sk_live_, rk_live_, gh?_, github_pat_, npm_, hf_
        r"A(?:KIA|SIA|BIA|CCA|3T|Iza)",
        r"-(?:(?<=sk-)|(?<=glpat-)|(?<=gl[dr]t-)|(?<=pypi-)|(?<=xox[bpaors]-))",
        r"\.(?:(?<=SG\.)|(?<=hooks\.)slack\.com/)",
        r"J(?<=eyJ)",
    )
)
# every rule's prefixes hold where one of the hints is found
assert all(any(h.search(p) for h in _TOKEN_HINTS) for r in TOKEN_RULES for p in r.prefixes)
#: the words of secret-like names, found in the lower-cased text by ``str.find``
_NAME_WORDS = ("pass", "pwd", "secret", "token", "key", "credential")
#: what follows such a word when it ends a name that is assigned a value: the rest of the last
#: word (``password``, ``credentials``), separators, the closing quote, the assignment and the
#: first eight characters of a value (what ``_assignments`` needs before it reports anything)
_AFTER_NAME = r"""(?:word|wd|phrase|s)?[_.-]{0,64}["'\]]{0,2}[ \t]{0,3}[:=][:=>]?[ \t]{0,3}["'`]?[^\s"'`,;&<>()\[\]{}]{8}"""


def _finds(text: str, literal: str) -> list[int]:
    """Every position of ``literal`` in ``text``."""
    hits, at = [], text.find(literal)
    while at >= 0:
        hits.append(at)
        at = text.find(literal, at + len(literal))
    return hits


def _line_of(offsets: list[int], at: int) -> int:
    return bisect.bisect_right(offsets, at) - 1


def find_secrets(text: str) -> list[Secret]:
    """Every credential in ``text``, in order, none overlapping; a line holding the allow comment
    (or the line after one that holds it) is left out.

    Each kind of rule first finds where it may apply in the whole text at once, so a file with
    no hint of a secret costs a dozen scans of its text and is never cut into lines.
    """
    keys = _finds(text, "PRIVATE KEY")
    urls = _finds(text, "://") if "@" in text else []  # a password in a URL is followed by its ``@``
    tokens = [m.start() for hint in _TOKEN_HINTS for m in hint.finditer(text)]
    lower = text.lower()
    if len(lower) != len(text):  # a letter whose lower case is longer (``İ``): keep the offsets
        lower = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    names = [(h, w) for w in _NAME_WORDS for h in _finds(lower, w)]
    if names:
        after = _re(_AFTER_NAME).match
        names = [(h, w) for h, w in names if after(lower, h + len(w))]
    if not (keys or urls or tokens or names):
        return []
    lines = split_lines(text)
    offsets = line_offsets(text)
    allowed: set[int] = set()
    for n in {_line_of(offsets, at) for at in _finds(text, "allow-secret")}:  # each line searched once
        if _re(_ALLOW).search(lines[n]):
            allowed |= {n, n + 1}
    found: list[Secret] = []
    inside: set[int] = set()  # the lines of a private key block
    ends = sorted({_line_of(offsets, at) for at in _finds(text, "-----END ")}) if keys else []
    for n in sorted({_line_of(offsets, at) for at in keys}):
        col = _key_begin(lines[n])
        if n in inside or n in allowed or col < 0:
            continue
        last = _private_key_end(lines, ends, n)
        line, base = lines[n], offsets[n]
        start = base + col
        if last is None:
            found.append(Secret("PRIVATE_KEY", start, base + len(line.rstrip())))
            continue
        inside.update(range(n, last + 1))
        found.append(Secret("PRIVATE_KEY", start, offsets[last] + len(lines[last].rstrip())))
    for hits, check in ((tokens, _tokens), (urls, _urls), ([h for h, _ in names], _assignments)):
        for n in sorted({_line_of(offsets, at) for at in hits}):
            if n not in allowed and n not in inside:
                check(lines[n], offsets[n], found)
    found.sort(key=lambda s: (s.start, -s.end))
    out: list[Secret] = []
    for s in found:
        if out and s.start < out[-1].end:
            continue
        out.append(s)
    return out
