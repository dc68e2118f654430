"""A project as ``ckp init`` reads it: its name, languages and description from its manifests (``package.json``, ``pyproject.toml``), its README and its source tree, and the knowledge file's body and answer made from them."""

from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ckp_lsp.core.compile.answer import answer_problems, normalize_answer, slugify
from ckp_lsp.core.compile.model import Answer, CompileInput, ConceptSummary
from ckp_lsp.core.compile.offline import compile_offline
from ckp_lsp.core.format.limits import MAX_TLDR
from ckp_lsp.core.project.discovery import SKIP_DIRS
from ckp_lsp.core.project.within import Folder, regular_inside

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


MAX_PROJECT_FILE = 1 << 20  # bytes read of a README or a manifest


MAX_WALK = 20_000  # files looked at in the source tree: bounded time on any project


_SKIP = SKIP_DIRS | {"dist", "build", "target", "out", "coverage", "site-packages", "vendor"}


LANGUAGES = {
    ".py": "Python",
    ".pyi": "Python",
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".js": "JavaScript",
    ".jsx": "JavaScript",
    ".mjs": "JavaScript",
    ".cjs": "JavaScript",
    ".go": "Go",
    ".rs": "Rust",
    ".java": "Java",
    ".kt": "Kotlin",
    ".swift": "Swift",
    ".rb": "Ruby",
    ".php": "PHP",
    ".cs": "C#",
    ".c": "C",
    ".h": "C",
    ".cc": "C++",
    ".cpp": "C++",
    ".hpp": "C++",
    ".scala": "Scala",
    ".ex": "Elixir",
    ".exs": "Elixir",
    ".dart": "Dart",
    ".lua": "Lua",
    ".sh": "Shell",
    ".vue": "Vue",
    ".svelte": "Svelte",
    ".sql": "SQL",
    ".vim": "Vim script",
}


_NAME_OF_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


_BADGE_OR_HTML = re.compile(r"^\s*(?:!\[|\[!\[|<)")


@dataclass
class Project:
    """What ``ckp init`` learns about a project."""

    root: Path
    name: str
    description: str = ""
    intro: str = ""  # the README's first paragraph
    languages: list[tuple[str, int]] = field(default_factory=list)  # (language, files), most first
    folders: list[tuple[str, int]] = field(default_factory=list)  # (top-level folder, files)
    dependencies: list[str] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)  # command names the project installs or runs
    manifests: list[str] = field(default_factory=list)

    @property
    def concept(self) -> str:
        return slugify(self.name) or "project"


def scan_project(root: Path, skip: Path | None = None) -> Project:
    """Read the manifests, the README and the source tree of ``root`` (``skip``: the bank folder)."""
    project = Project(root, root.resolve().name)
    _read_package_json(root, project)
    _read_pyproject(root, project)
    _read_readme(root, project)
    _read_tree(root, project, skip.resolve() if skip else None)
    project.dependencies = list(dict.fromkeys(project.dependencies))
    return project


def _project_text(root: Path, name: str) -> str | None:
    """The text of the project's file ``name``, read only when it is a regular file inside the
    project: a link to ``/proc/self/environ`` or to ``../secret`` is never copied into the bank."""
    path = root / name
    if not regular_inside(path, root):
        return None
    try:
        data = Folder(root).head(path, MAX_PROJECT_FILE)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace")


def _read_package_json(root: Path, project: Project) -> None:
    try:
        data = json.loads(_project_text(root, "package.json") or "")
    except ValueError:
        return
    if not isinstance(data, dict):
        return
    project.manifests.append("package.json")
    if isinstance(data.get("name"), str) and data["name"].strip():
        project.name = data["name"].strip().rsplit("/", 1)[-1]
    if isinstance(data.get("description"), str) and not project.description:
        project.description = data["description"].strip()
    deps = data.get("dependencies")
    if isinstance(deps, dict):
        project.dependencies.extend(str(k) for k in deps)
    for key in ("bin", "scripts"):
        value = data.get(key)
        if isinstance(value, dict):
            project.scripts.extend(f"npm run {k}" if key == "scripts" else str(k) for k in value)


def _read_pyproject(root: Path, project: Project) -> None:
    try:
        text = _project_text(root, "pyproject.toml")
        data = tomllib.loads(text) if text is not None else None
    except tomllib.TOMLDecodeError:
        return
    if data is None:
        return
    project.manifests.append("pyproject.toml")
    meta: Any = data.get("project") or data.get("tool", {}).get("poetry") or {}
    if not isinstance(meta, dict):
        return
    if isinstance(meta.get("name"), str) and meta["name"].strip() and "package.json" not in project.manifests:
        project.name = meta["name"].strip()
    if isinstance(meta.get("description"), str) and not project.description:
        project.description = meta["description"].strip()
    deps = meta.get("dependencies")
    if isinstance(deps, list):
        names = (_NAME_OF_REQUIREMENT.match(d) for d in deps if isinstance(d, str))
        project.dependencies.extend(m.group(1) for m in names if m)
    elif isinstance(deps, dict):
        project.dependencies.extend(str(k) for k in deps if str(k).lower() != "python")
    scripts = meta.get("scripts")
    if isinstance(scripts, dict):
        project.scripts.extend(str(k) for k in scripts)


def _read_readme(root: Path, project: Project) -> None:
    names = ("README.md", "README.rst", "README.txt", "README")
    text = next((t for n in names if (t := _project_text(root, n)) is not None), None)
    if text is None:
        return
    paragraph: list[str] = []
    in_code = False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code or s.startswith(("#", "=", "-" * 3)) or _BADGE_OR_HTML.match(s):
            if paragraph:
                break
            continue
        if not s:
            if paragraph:
                break
            continue
        paragraph.append(s)
    project.intro = " ".join(paragraph)
    if not project.description and project.intro:
        project.description = _first_sentence(project.intro)


def _first_sentence(text: str) -> str:
    m = re.search(r"[.!?](?=\s+[A-Z0-9])", text)
    return text[: m.end()] if m else text


def _read_tree(root: Path, project: Project, skip: Path | None) -> None:
    languages: Counter[str] = Counter()
    folders: Counter[str] = Counter()
    seen = 0
    for folder, dirs, files in Folder(root).walk():
        here = Path(folder)
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in _SKIP and not d.startswith(".") and (skip is None or (here / d).resolve() != skip)
        )
        top = here.relative_to(root).parts[:1]
        for name in files:
            seen += 1
            language = LANGUAGES.get(os.path.splitext(name)[1].lower())
            if language:
                languages[language] += 1
            if top:
                folders[top[0]] += 1
        if seen >= MAX_WALK:
            break
    project.languages = sorted(languages.items(), key=lambda kv: (-kv[1], kv[0]))
    project.folders = sorted(folders.items())


def project_body(project: Project) -> str:
    """The Markdown body of the project's knowledge file."""
    lines = [f"# {project.name}", ""]
    if project.description:
        lines += [project.description, ""]
    if project.intro and project.intro != project.description:
        lines += ["## Overview", "", project.intro, ""]
    lines += ["## Stack", ""]
    if project.languages:
        langs = ", ".join(f"{lang} ({n} file{'s' if n != 1 else ''})" for lang, n in project.languages)
        lines.append(f"- Languages: {langs}")
    if project.dependencies:
        lines.append("- Main dependencies: " + ", ".join(f"`{d}`" for d in project.dependencies[:15]))
    if project.manifests:
        lines.append("- Manifests: " + ", ".join(f"`{m}`" for m in project.manifests))
    if project.scripts:
        lines.append("- Commands: " + ", ".join(f"`{s}`" for s in project.scripts[:10]))
    if lines[-1] == "":
        lines.append("- No manifest or source file was recognised.")
    if project.folders:
        lines += ["", "## Layout", ""]
        lines += [f"- `{name}/`: {n} file{'s' if n != 1 else ''}" for name, n in project.folders]
    lines += [
        "",
        "## Keeping this file current",
        "",
        "Written by `ckp init` from the project's manifests, README and source tree. Add what a "
        "newcomer needs (architecture, decisions, conventions), split large topics into their own "
        "knowledge files, and recompile the header after large changes.",
    ]
    return "\n".join(lines) + "\n"


def _short_sentence(text: str) -> str:
    """The first sentence of ``text``, cut at a word to fit a TLDR."""
    sentence = " ".join(_first_sentence(text).split())
    if len(sentence) <= MAX_TLDR:
        return sentence
    return sentence[: MAX_TLDR - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _fallback_answer(project: Project) -> Answer:
    """A header from the project's facts alone, for when the compiled one breaks a rule."""
    tldr = (
        _short_sentence(project.description)
        or f"Overview of the {project.name} project: stack, layout, dependencies."
    )
    keywords = [project.concept, *(lang for lang, _ in project.languages[:3]), *project.dependencies[:8]]
    return Answer(tldr=tldr, answers_when=keywords, confidence="low")


def project_prose(project: Project) -> str:
    """What the project says about itself (name, description, README intro): what the compiler reads."""
    parts = [
        f"# {project.name}",
        project.description,
        project.intro if project.intro != project.description else "",
    ]
    return "\n\n".join(p for p in parts if p) + "\n"


def project_answer(project: Project, others: list[ConceptSummary]) -> Answer:
    """The project file's header values: compiled offline from the project's own words, then its
    languages and main dependencies as further keywords; checked against SPEC §2."""
    known = [o.concept for o in others]
    inp = CompileInput(project_prose(project), project.concept, tuple(others), project.concept)
    compiled = compile_offline(inp)
    facts = [lang for lang, _ in project.languages[:3]] + project.dependencies[:8]
    answer = normalize_answer(
        replace(compiled, answers_when=[*compiled.answers_when, *facts]), known, project.concept
    )
    if not answer_problems(answer):
        return answer
    return normalize_answer(_fallback_answer(project), known, project.concept)
