"""No process-global cache without a bound and an owner.

The scan finds every module-level container (a dict, list, set, ``OrderedDict``, weak dictionary,
or an object of the package's own) that a function of its module changes, and every function kept
by ``functools.lru_cache`` or ``functools.cache``; each must be named in ``CACHES`` with its bound
and its owner, and an ``lru_cache``'s bound is the one it is given. A cache added without a bound,
or one that is gone, fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ckp_lsp

PACKAGE = Path(ckp_lsp.__file__).parent

#: what is kept for the process, where: (its bound, who owns it, i.e. what it lives and is cleared with)
CACHES: dict[str, tuple[str, str]] = {
    # containers changed by their module's functions
    "core/bank/cache.py:_STAMP": (
        "one value",
        "the process: the interpreter and package the cache entries were written by",
    ),
    "core/bank/index_checks.py:_TABLES": (
        "one table per live bank (weak keys)",
        "each bank: its entry goes with it",
    ),
    "core/compile/candidates.py:_PREPARED": (
        "one preparation (cleared before each new one)",
        "the bank being compiled",
    ),
    "core/compile/compiler.py:_CACHE": (
        "256 answers, least recently used dropped",
        "the process: compiles of a header asked again",
    ),
    "core/edit/fixes.py:_FIELD": ("one field's items", "the last fix asked: replaced by the next"),
    "core/edit/fixes.py:_ITEMS": ("one header's items", "the last fix asked: replaced by the next"),
    "core/format/knowledge.py:_DATES": (
        "65,536 date texts",
        "the process: VALIDATED and relationship dates read",
    ),
    "core/language/libraries.py:_failed": (
        "the optional libraries (LIBRARIES)",
        "the process: a library that failed to load",
    ),
    "faces/llm/command.py:_RUNNING": ("the provider commands running", "each command: removed as it ends"),
    "faces/llm/providers.py:_TEXT_ONLY": (
        "64 endpoints (TextOnly.limit)",
        "the process: the endpoints that refused structured output",
    ),
    "server/features/actions.py:_CHANGES": (
        "16 texts per live bank (weak keys)",
        "each bank: its entry goes with it",
    ),
    # functions whose answers are kept
    "core/bank/index_checks.py:_table_layout": ("maxsize=2", "the index texts checked last"),
    "core/compile/offline/keywords.py:_prose_word": (
        "maxsize=65536",
        "the process: the words of the bodies compiled",
    ),
    "core/compile/offline/relationships.py:profile": ("maxsize=8192", "the process: the files compiled"),
    "core/compile/offline/terms.py:is_identifier": ("maxsize=65536", "the process: the words compiled"),
    "core/compile/offline/terms.py:part_keys": ("maxsize=65536", "the process: the words compiled"),
    "core/compile/offline/terms.py:stem": ("maxsize=65536", "the process: the words compiled"),
    "core/compile/offline/terms.py:usable_word": ("maxsize=65536", "the process: the words compiled"),
    "core/edit/writes.py:_renameat2": ("one value", "the process: the C library's renameat2, looked up once"),
    "core/format/front_matter.py:_yaml": ("one value", "the process: the YAML library, imported once"),
    "core/format/yaml_load.py:guarded_loader": ("one per YAML loader class (two)", "the process"),
    "core/format/dates.py:parse_date": ("maxsize=8192", "the process: the date texts read"),
    "core/format/index.py:index_lines": ("maxsize=2", "the index texts read last"),
    "core/format/index_cells.py:_line_starts": ("maxsize=2", "the index texts read last"),
    "core/format/index_cells.py:index_layout": ("maxsize=2", "the index texts read last"),
    "core/language/address.py:_ending": ("one value", "the process: a pattern compiled once"),
    "core/language/address.py:_opening": (
        "one per table of the module (two)",
        "the process: patterns compiled once",
    ),
    "core/language/names.py:_anyascii": ("one value", "the process: a library imported once"),
    "core/language/names.py:_kakasi": ("one value", "the process: a library imported once"),
    "core/language/scripts.py:script_of": ("maxsize=4096", "the process: the characters read"),
    "core/language/segment.py:_chinese": ("one value", "the process: a library imported once"),
    "core/language/segment.py:_japanese": ("one value", "the process: a library imported once"),
    "core/language/segment.py:_simplified": ("one value", "the process: a library imported once"),
    "core/language/sentences.py:_segment": ("one value", "the process: a library imported once"),
    "core/language/stems.py:_stemmer": ("one per language code (Snowball's, about 30)", "the process"),
    "core/language/stems.py:stem": ("maxsize=65536", "the process: the words stemmed"),
    "core/language/stopwords.py:_data": ("one value", "the process: the package's word lists, read once"),
    "core/language/stopwords.py:_list": ("one per language code (the lists', about 60)", "the process"),
    "core/language/stopwords.py:_raw": ("one value", "the process: the package's word lists, read once"),
    "core/language/stopwords.py:_stop_words": ("maxsize=256", "the process: the language sets asked"),
    "core/language/stopwords.py:_traditional": ("one value", "the process: a word list made once"),
    "core/language/stopwords.py:languages_of_word": ("one value", "the process: a table made once"),
    "core/navigation/references.py:_sorted_rows": ("maxsize=2", "the index texts read last"),
    "core/project/discovery.py:_globs": ("maxsize=64", "the process: the exclude patterns configured"),
    "core/project/within.py:_found_temp_folder": (
        "one value",
        "the process: the temporary folder, found once as tempfile finds it",
    ),
    "core/routing/analysis.py:_cjk": ("one value", "the process: a pattern compiled once"),
    "core/routing/analysis.py:fold": ("maxsize=4096", "the process: the words folded"),
    "core/routing/korean.py:_suffix": ("one value", "the process: a pattern compiled once"),
    "core/routing/words.py:scripts": ("one value", "the process: patterns compiled once"),
    "faces/paths.py:_relative": ("maxsize=65536", "the process: the paths printed"),
    "server/convert.py:_root_uri": ("maxsize=1024", "the server session: the banks' roots it converts"),
}

CONTAINERS = {"dict", "list", "set", "OrderedDict", "defaultdict", "deque", "Counter"}
CONTAINERS |= {"WeakKeyDictionary", "WeakValueDictionary", "WeakSet"}
MUTATORS = {"append", "add", "update", "setdefault", "pop", "popitem", "clear", "extend", "insert"}
MUTATORS |= {"remove", "discard", "move_to_end", "appendleft", "__setitem__"}


def _name(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _kept(value: ast.AST) -> bool:
    """Whether a module-level value can keep what its functions put in it."""
    if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
        return True
    if isinstance(value, ast.Call):
        name = _name(value.func)
        return name in CONTAINERS or (name[:1].isupper() and isinstance(value.func, ast.Name))
    return False


def _bound(decorator: ast.expr) -> str:
    """An ``lru_cache``'s ``maxsize=N``, or what a ``cache`` or an unsized one is."""
    if not isinstance(decorator, ast.Call):
        return "maxsize=128" if _name(decorator) == "lru_cache" else "unbounded"
    size = (
        decorator.args[0] if decorator.args else {k.arg: k.value for k in decorator.keywords}.get("maxsize")
    )
    if size is None:
        return "maxsize=128"
    value = eval(compile(ast.Expression(size), "<maxsize>", "eval"), {"__builtins__": {}})
    return "unbounded" if value is None else f"maxsize={value}"


def _mutated(node: ast.AST) -> str | None:
    """The name whose contents ``node`` changes, if it changes one."""
    if isinstance(node, (ast.Assign, ast.Delete)):
        return next((_root(t) for t in node.targets if isinstance(t, ast.Subscript)), None)
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
        return _root(node.target)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
        return _root(node.func.value)
    return None


def _caches() -> dict[str, str]:
    """Every process-global cache of the package: its place, and what bounds it as written."""
    out: dict[str, str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        kept: set[str] = set()
        for node in tree.body:
            if isinstance(node, ast.Assign) and _kept(node.value):
                kept |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.AnnAssign) and node.value is not None and _kept(node.value):
                kept.add(_name(node.target))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for d in fn.decorator_list:
                if _name(d.func if isinstance(d, ast.Call) else d) in ("lru_cache", "cache"):
                    out[f"{rel}:{fn.name}"] = _bound(d)
            for node in ast.walk(fn):
                if (name := _mutated(node)) in kept:
                    out[f"{rel}:{name}"] = "kept"
    return out


def test_every_process_global_cache_has_a_bound_and_an_owner() -> None:
    found = _caches()
    assert set(found) == set(
        CACHES
    )  # a new one is listed here with its bound and owner; a gone one is dropped
    for place, bound in found.items():
        if bound.startswith("maxsize") or bound == "unbounded":
            if CACHES[place][0].startswith("maxsize"):
                assert bound == CACHES[place][0], place  # the bound it is given is the one listed
            else:
                assert bound == "unbounded", (
                    place
                )  # a function of no argument, or of a few: ``functools.cache``


def test_a_cache_of_unbounded_arguments_is_bounded() -> None:
    # ``functools.cache`` is for what its arguments bound (none, a language code, a class);
    # a function of words, texts or paths keeps at most ``maxsize`` of them.
    for place, bound in _caches().items():
        if bound == "unbounded":
            assert not CACHES[place][0].startswith("maxsize"), place
            assert CACHES[place][0].startswith("one"), place


def test_the_scan_finds_what_it_is_for() -> None:
    tree = ast.parse(
        "import functools\n_SEEN = {}\n_LIVE = Table()\n_FIXED = {'a': 1}\n"
        "def f(k):\n    _SEEN[k] = 1\n    _LIVE.add(k)\n    return _FIXED[k]\n"
        "@functools.lru_cache(maxsize=1 << 4)\ndef g(x):\n    return x\n"
        "@functools.cache\ndef h(x):\n    return x\n"
    )
    kept = {
        t.id
        for n in tree.body
        if isinstance(n, ast.Assign) and _kept(n.value)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    fns = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert {_mutated(n) for n in ast.walk(fns[0])} & kept == {"_SEEN", "_LIVE"}
    assert (
        _bound(fns[1].decorator_list[0]) == "maxsize=16" and _bound(fns[2].decorator_list[0]) == "unbounded"
    )
