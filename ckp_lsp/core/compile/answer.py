"""The answer contract of SPEC §7: parse a reply, normalise it, list what still breaks a rule."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Collection
from dataclasses import replace
from typing import Any

from ckp_lsp.core.compile.model import Answer, CompileError
from ckp_lsp.core.format.fields import CONCEPT_RE, CONFIDENCES
from ckp_lsp.core.format.limits import MAX_HIGH, MAX_KEYWORDS, MAX_MID
from ckp_lsp.core.format.limits import MAX_TLDR as MAX_TLDR_CHARS

_RETRY = "try again or choose another model"
_SPACE_RUN = re.compile(r"\s+")


def unfenced(text: str) -> str:
    """The inside of a ```` ``` ```` / ```` ```json ```` fence around ``text``, or ``text``.

    String operations, no regular expression: a pattern for this backtracked cubically over a
    run of spaces (4,000 spaces: about 20 s)."""
    if len(text) < 6 or not text.startswith("```") or not text.endswith("```"):
        return text
    inner = text[3:-3].lstrip(" \t")
    if inner[:4].lower() == "json":
        inner = inner[4:]
    return inner.strip()


def parse_answer(text: str) -> Answer:
    """The Answer in a model's reply: a bare JSON object or one inside a ``` / ```json fence."""
    stripped = text.strip()
    if not stripped:
        raise CompileError(f"the model answered with nothing; {_RETRY}")
    payload = unfenced(stripped)
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        raise CompileError(
            f"the model answered with text that is not a JSON header object; {_RETRY}"
        ) from None
    if not isinstance(data, dict):
        raise CompileError(
            f"the model answered with JSON that is {_json_kind(data)}, not a header object; {_RETRY}"
        )
    _refuse_bad_characters(data)
    fields = {str(k).strip().upper(): v for k, v in data.items()}
    missing = [k for k in ("TLDR", "ANSWERS_WHEN") if fields.get(k) is None]
    if missing:
        raise CompileError(f"the model's answer has no {' and no '.join(missing)}; {_RETRY}")
    tldr = fields["TLDR"]
    if not isinstance(tldr, str):
        raise CompileError(f"the model's TLDR is {_json_kind(tldr)}, not a string; {_RETRY}")
    confidence = fields.get("CONFIDENCE")
    if confidence is not None and not isinstance(confidence, str):
        raise CompileError(
            f"the model's CONFIDENCE is {_json_kind(confidence)}, not high, medium or low; {_RETRY}"
        )
    concept = fields.get("CONCEPT")
    if concept is not None and not isinstance(concept, str):
        raise CompileError(f"the model's CONCEPT is {_json_kind(concept)}, not a name; {_RETRY}")
    return Answer(
        tldr=tldr,
        answers_when=_string_list(fields["ANSWERS_WHEN"], "ANSWERS_WHEN"),
        similar_high=_relationships(fields.get("SIMILAR_HIGH"), "SIMILAR_HIGH"),
        similar_mid=_relationships(fields.get("SIMILAR_MID"), "SIMILAR_MID"),
        confidence=confidence if confidence is not None else "medium",
        concept=concept if concept is not None and concept.strip() else None,
    )


# Control characters (NUL, ESC, DEL, C1) and lone surrogates have no place in a header: they would
# reach terminals raw or make the file unwritable as UTF-8. Tab and newlines are folded later.
_BAD_CHARACTER = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def _refuse_bad_characters(value: Any, where: str = "") -> None:
    """A CompileError when a string anywhere in the answer holds a control character or a lone
    surrogate (JSON's ``\\ud800``)."""
    if isinstance(value, str):
        bad = _BAD_CHARACTER.search(value)
        if bad:
            c = ord(bad.group())
            kind = "a lone surrogate" if 0xD800 <= c <= 0xDFFF else "a control character"
            raise CompileError(
                f"the model's answer holds {kind} (U+{c:04X}){where}; nothing was changed; {_RETRY}"
            )
    elif isinstance(value, dict):
        for k, v in value.items():
            _refuse_bad_characters(k, where)
            _refuse_bad_characters(v, where or f" in {str(k)[:40]!r}")
    elif isinstance(value, list):
        for v in value:
            _refuse_bad_characters(v, where)


def normalize_answer(ans: Answer, known: Collection[str], self_concept: str | None) -> Answer:
    """`ans` fixed where a fix is unambiguous: unknown, self and duplicate concepts, caps, case."""
    concept = None
    if self_concept is None and ans.concept:
        concept = slugify(ans.concept) or None
    known_set = set(known)
    # A new file's proposed name is itself too, unless it names another file (a clash to repair).
    selves = {self_concept} if self_concept else ({concept} - known_set if concept else set())
    high = _concepts(ans.similar_high, known_set, selves, set())[:MAX_HIGH]
    # Cut HIGH first: an entry over the HIGH cap may still be kept where the model also put it.
    mid = _concepts(ans.similar_mid, known_set, selves, set(high))[:MAX_MID]
    return replace(
        ans,
        tldr=_one_line(ans.tldr),
        answers_when=_keywords(ans.answers_when)[:MAX_KEYWORDS],
        similar_high=high,
        similar_mid=mid,
        confidence=ans.confidence.strip().lower(),
        concept=concept,
    )


def answer_problems(ans: Answer, *, needs_concept: bool = False, taken: Collection[str] = ()) -> list[str]:
    """What still breaks a rule after normalisation, phrased as what the model must fix.

    `needs_concept`: the file has no CONCEPT, so the answer must carry one; `taken`: the
    concepts of the bank's other files, which a new CONCEPT must not repeat.
    """
    problems: list[str] = []
    tldr = ans.tldr.strip()
    if not tldr:
        problems.append("TLDR is empty; write one sentence saying what the file is about")
    else:
        if len(tldr) > MAX_TLDR_CHARS:
            problems.append(f"TLDR is {len(tldr)} characters long; shorten it to at most {MAX_TLDR_CHARS}")
        if sentence_count(tldr) > 1:
            problems.append("TLDR has more than one sentence; make it exactly one sentence")
    if not [k for k in ans.answers_when if k.strip()]:
        problems.append(f"ANSWERS_WHEN is empty; give 1 to {MAX_KEYWORDS} keywords")
    if ans.confidence.strip().lower() not in CONFIDENCES:
        problems.append(f"CONFIDENCE is {ans.confidence!r}; it must be one of high, medium or low")
    if ans.concept is not None:
        if not CONCEPT_RE.match(ans.concept):
            problems.append(
                f"CONCEPT {ans.concept!r} is not a valid name; use lower-case letters, digits, "
                "'.', '_' and '-' only, starting with a letter or digit"
            )
        elif ans.concept in taken:
            problems.append(
                f"CONCEPT {ans.concept!r} is already the concept of another file; choose another name"
            )
    elif needs_concept:
        problems.append('CONCEPT is missing; this file has none, so add a "CONCEPT" key with a new name')
    return problems


_NOT_SLUG = re.compile(r"[^a-z0-9._-]+")
_DASH_RUN = re.compile(r"-{2,}")
_LEADING_NON_ALNUM = re.compile(r"\A[^a-z0-9]+")


def slugify(text: str) -> str:
    """`text` as a concept name: `JWT Authentication` -> `jwt-authentication` ('' if none left)."""
    if not text.isascii():
        from ..language import transliterate  # a name in another script is spelt, not dropped

        text = transliterate(text)
    # Accents fold to their base letter (Café -> cafe) rather than to a dash.
    decomposed = unicodedata.normalize("NFKD", text)
    ascii_ish = "".join(c for c in decomposed if not unicodedata.combining(c)).lower()
    slug = _DASH_RUN.sub("-", _NOT_SLUG.sub("-", ascii_ish))  # `a - b` -> `a-b`, not `a---b`
    slug = _LEADING_NON_ALNUM.sub("", slug)
    return slug.rstrip("._-")  # a pattern anchored at the end was tried at every dot: quadratic


# Abbreviations whose dot does not end a sentence.
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|resp|no)\.", re.IGNORECASE)
#: starts only at the first mark of a run, and looks at the next sentence's first character
#: without taking it: tried inside a run of dots, the pattern backtracked over the whole run
#: from each one (quadratic)
_SENTENCE_END = re.compile(r"(?<![.!?])[.!?]+[\"')\]]*\s+(?=(\S))")


def sentence_count(text: str) -> int:
    """How many sentences `text` holds: `.`, `!` or `?`, a space and a capital start a new one."""
    masked = _ABBREVIATION.sub(lambda m: m.group(0).replace(".", "_"), text.strip())
    if not masked:
        return 0
    starts = [m.group(1) for m in _SENTENCE_END.finditer(masked)]
    return 1 + sum(1 for c in starts if c.isupper() or c in "\"'([")


def _json_kind(value: Any) -> str:
    """The JSON name of a decoded value's type with its article, for messages: `an array`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _string_list(value: Any, key: str) -> list[str]:
    """A list of strings or a comma-separated string as stripped, non-empty items."""
    if value is None:
        return []
    if isinstance(value, str):
        items = [value]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = value
    else:
        raise CompileError(f"the model's {key} is {_json_kind(value)}, not a list of strings; {_RETRY}")
    # An item holding commas would turn into several keywords once written, so split it now.
    return [part.strip() for item in items for part in item.split(",") if part.strip()]


def _relationships(value: Any, key: str) -> list[str]:
    """SIMILAR_* entries without their dates: `jwt:2025-05` -> `jwt` (a concept has no colon)."""
    names = (entry.split(":", 1)[0].strip() for entry in _string_list(value, key))
    return [name for name in names if name]


def _concepts(entries: list[str], known: set[str], selves: set[str], excluded: set[str]) -> list[str]:
    """Entries lower-cased, kept when known, not self, not excluded and not seen before."""
    kept: list[str] = []
    for entry in entries:
        name = entry.strip().lower()
        if name in known and name not in selves and name not in excluded and name not in kept:
            kept.append(name)
    return kept


def _keywords(keywords: list[str]) -> list[str]:
    """Keywords on one line each, the first spelling of a case-insensitive duplicate kept."""
    seen: set[str] = set()
    kept: list[str] = []
    for keyword in keywords:
        text = _one_line(keyword)
        key = text.casefold()
        if text and key not in seen:
            seen.add(key)
            kept.append(text)
    return kept


def _one_line(text: str) -> str:
    """`text` with every whitespace run folded to one space."""
    return _SPACE_RUN.sub(" ", text).strip()
