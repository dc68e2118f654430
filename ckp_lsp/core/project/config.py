"""Configuration: the user's file, ``.ckp.toml`` at the workspace or bank root (trust-filtered), the
environment, then editor settings or command-line flags on top."""

from __future__ import annotations

import contextlib
import math
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ckp_lsp.core.bank.findings import CODES, Severity
from ckp_lsp.core.format.limits import INDEX_BUDGET_TOKENS
from ckp_lsp.core.format.records import Frozen
from ckp_lsp.core.project.trust import (
    GIT_STALENESS,
    TrustStore,
    sensitive_settings,
    shown_value,
    user_config_path,
)
from ckp_lsp.core.project.within import (
    config_text,
    inside,
    never_projects,
    repository_of,
    spelled_inside,
)


def _toml() -> Any:
    """The TOML parser, imported when a file is there to parse (the prompt hook starts without it)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib


CONFIG_NAME = ".ckp.toml"
STALENESS = ("validated", "git", "mtime")
INDEX_FORMATS = ("table", "blocks", "compact")
PROVIDERS = ("offline", "openai", "anthropic", "command")
MAX_TIMEOUT = 86400.0  # a day: beyond it a "timeout" is a typo, and sockets refuse it
#: Environment variables a user may set instead of a config file (keys stay in their own variables).
LLM_ENVIRONMENT = {
    "CKP_LLM_PROVIDER": "provider",
    "CKP_LLM_MODEL": "model",
    "CKP_LLM_BASE_URL": "base_url",
    "CKP_LLM_COMMAND": "command",
    "CKP_LLM_TIMEOUT": "timeout",
}
_SEVERITIES = {
    "error": Severity.ERROR,
    "warning": Severity.WARNING,
    "information": Severity.INFORMATION,
    "info": Severity.INFORMATION,
    "hint": Severity.HINT,
    "off": None,
}


class LlmConfig(Frozen):
    """Which compiler recompiles headers, and how to reach it."""

    _fields = ("provider", "model", "base_url", "command", "timeout", "candidates")
    __slots__ = _fields

    def __init__(
        self,
        provider: str = "offline",
        model: str | None = None,
        base_url: str | None = None,
        command: str | None = None,
        timeout: float = 60.0,
        candidates: int = 40,  # the other concepts a prompt lists at most (the header's, then the best)
    ) -> None:
        self.provider = provider
        self.model = model
        self.base_url = base_url
        self.command = command
        self.timeout = timeout
        self.candidates = candidates


#: the entry files agents read first (Claude Code, Codex, Gemini CLI…), kept beside the notes
AGENT_ENTRY_FILES = ("MEMORY.md", "CLAUDE.md", "AGENTS.md", "GEMINI.md")
#: Markdown files of a bank that are not knowledge files: the bank's own README, the agents' entry
#: files, per-folder index files (the root ``_index.md`` is the CKP index), and templates.
#: ``exclude`` replaces this list, ``extend_exclude`` adds to it.
DEFAULT_EXCLUDE = (
    "README.md",
    *AGENT_ENTRY_FILES,
    "index.md",
    "_index.md",
    "_*template*.md",
    "*-template.md",
    "*.template.md",
    "templates/*",
    "*/templates/*",
)
#: files an agent rewrites every session (Cline's): knowledge files, routed and indexed, but a
#: relationship to one is never stale, since its date moves every day
DEFAULT_SESSION_FILES = ("activeContext.md", "progress.md")


class Config(Frozen):
    """Settings of SPEC and the issues, with their defaults."""

    # (its fields: the parameters of ``__init__``; no slots: a process holds a few of these)

    def __init__(
        self,
        banks: tuple[str, ...] = (),
        exclude: tuple[str, ...] = DEFAULT_EXCLUDE,
        session_files: tuple[str, ...] = DEFAULT_SESSION_FILES,
        staleness: str = "validated",
        index_format: str = "table",
        index_budget_tokens: int = INDEX_BUDGET_TOKENS,
        file_budget_tokens: int = 8000,  # a routed file above this is flagged (it costs more than the index)
        index_update_on_save: bool = False,
        diagnostics: dict[str, Severity | None] | None = None,
        llm: LlmConfig | None = None,
        problems: tuple[str, ...] = (),  # what was wrong in the settings, for the user to see
        # workspace settings dropped because their folder is not trusted (SPEC §8), for the user to see
        ignored: tuple[str, ...] = (),
    ) -> None:
        self.banks = banks
        self.exclude = exclude
        self.session_files = session_files
        self.staleness = staleness
        self.index_format = index_format
        self.index_budget_tokens = index_budget_tokens
        self.file_budget_tokens = file_budget_tokens
        self.index_update_on_save = index_update_on_save
        self.diagnostics: dict[str, Severity | None] = {} if diagnostics is None else diagnostics
        self.llm = LlmConfig() if llm is None else llm
        self.problems = problems
        self.ignored = ignored

    def merged(self, settings: dict[str, Any]) -> Config:
        """This config with ``settings`` (``.ckp.toml`` keys or editor ``ckp.*`` keys) on top."""
        return _merge(self, settings)


def load_config(*folders: Path, base: Config | None = None) -> Config:
    """Config from the ``.ckp.toml`` in each of ``folders``, later folders overriding.

    These are workspace files: settings that choose a program, an endpoint or where a key goes
    are taken only from folders the user trusted (SPEC §8); the others are noted in ``ignored``.
    """
    config = base or Config()
    for folder in folders:
        path = folder / CONFIG_NAME
        data = _read_toml(path, repository_of(folder))
        if isinstance(data, str):
            config = config.replace(problems=(*config.problems, data))
            continue
        if data is None:
            continue
        problems: list[str] = []
        data = confined(folder, data, problems)
        git_mode = data.get("staleness") == "git"
        data, note = _trusted_part(folder, data)
        if note:
            config = config.replace(ignored=(*config.ignored, note))
        if git_mode and "staleness" not in data:
            # Said by every face (a problem), not only by a compile: the dates are validated ones.
            problems.append(
                f"{path}: ignored staleness = 'git' (the folder is not trusted: git would run in "
                f"it); relationships are dated by VALIDATED. Run `ckp trust {folder}` if you trust it"
            )
        config = config.merged(data)
        if problems:
            config = config.replace(problems=(*config.problems, *problems))
    return config


def confined(folder: Path, data: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    """``data`` of ``folder``'s ``.ckp.toml`` without the banks and excludes that reach outside
    ``folder`` (``..``, an absolute path, a symbolic link out): a cloned repository chooses no
    folder of the machine. Each one dropped is a problem for the user to read."""
    where = folder / CONFIG_NAME
    out = dict(data)
    banks = data.get("banks")
    if isinstance(banks, list):
        kept = []
        for b in banks:
            real = Path(os.path.realpath(folder / str(b)))
            if inside(real, folder):
                kept.append(b)
            else:
                problems.append(
                    f"{where}: banks = {str(b)!r} leads outside {folder} (to {real}): ignored; "
                    "a .ckp.toml names banks inside its own folder only"
                )
        out["banks"] = kept
    for key in ("exclude", "extend_exclude", "extendExclude"):
        exclude = data.get(key)
        if isinstance(exclude, list):
            out[key] = _confined_globs(where, key, exclude, problems)
    return out


def _confined_globs(where: Path, key: str, globs: list[Any], problems: list[str]) -> list[Any]:
    """The globs of ``key`` that name files inside the bank (relative, no ``..``)."""
    kept = []
    for g in globs:
        glob = str(g)
        if not spelled_inside(glob):
            problems.append(
                f"{where}: {key} = {glob!r} names something outside the bank: ignored; "
                "write globs relative to the bank (e.g. 'drafts/*')"
            )
        else:
            kept.append(g)
    return kept


def user_config(env: Mapping[str, str] | None = None) -> Config:
    """The user-level file (``~/.config/ckp/config.toml``): the user's own, so fully trusted."""
    path = user_config_path(env)
    data = _read_toml(path, None)
    if isinstance(data, str):
        return Config(problems=(data,))
    if data is None:
        return Config()
    config = Config().merged(data)
    return config.replace(problems=tuple(f"{path}: {p}" for p in config.problems))


def with_environment(config: Config, env: Mapping[str, str] | None = None) -> Config:
    """``config`` with the ``CKP_LLM_*`` environment variables on top (the user set them)."""
    env = os.environ if env is None else env
    llm: dict[str, object] = {key: env[var] for var, key in LLM_ENVIRONMENT.items() if env.get(var)}
    if "timeout" in llm:
        # One that is not a number stays a string: the check of every timeout reports it.
        with contextlib.suppress(ValueError):
            llm["timeout"] = float(str(llm["timeout"]))
    return config.merged({"llm": llm}) if llm else config


def _read_toml(path: Path, within: Path | None) -> dict[str, Any] | str | None:
    """The parsed file (read inside ``within``, None: the user's own file), a message saying what
    is wrong with it, or None when there is none."""
    if not path.is_file():
        return None
    toml = _toml()
    try:
        return toml.loads(config_text(path, within))
    except (OSError, UnicodeDecodeError, toml.TOMLDecodeError) as exc:
        return f"{path}: {exc}"


def _trusted_part(folder: Path, data: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """``data`` without its trust-sensitive settings unless ``folder`` is trusted, and a note."""
    sensitive = sensitive_settings(data)
    if not sensitive:
        return data, ""
    verdict = TrustStore().verdict(folder, sensitive)
    if verdict == "trusted":
        return data, ""
    kept = {k: v for k, v in data.items() if not (k == GIT_STALENESS and GIT_STALENESS in sensitive)}
    if isinstance(data.get("llm"), dict):
        kept["llm"] = {k: v for k, v in data["llm"].items() if k not in sensitive}
    why = (
        "the settings trust covers changed since the folder was trusted"
        if verdict == "changed"
        else "the folder is not trusted"
    )
    shown = ", ".join(shown_value(k, v) for k, v in sensitive.items())
    note = (
        f"{folder / CONFIG_NAME}: ignored {shown} ({why}); if you trust this folder, "
        f"run `ckp trust {folder}` (or set these in your user config or editor settings)"
    )
    return kept, note


def _merge(config: Config, s: dict[str, Any]) -> Config:
    problems = list(config.problems)
    changes: dict[str, Any] = {}

    def pick(key: str, allowed: tuple[str, ...]) -> None:
        if key in s and s[key] is not None:
            if s[key] in allowed:
                changes[key] = s[key]
            else:
                problems.append(f"{key} = {s[key]!r} is not one of {', '.join(allowed)}")

    pick("staleness", STALENESS)
    pick("index_format", INDEX_FORMATS)
    for alias, key in (("extendExclude", "extend_exclude"), ("sessionFiles", "session_files")):
        if alias in s and key not in s:  # the editor's spelling
            s = {**s, key: s[alias]}
    if "fileBudgetTokens" in s and "file_budget_tokens" not in s:
        s = {**s, "file_budget_tokens": s["fileBudgetTokens"]}
    for key in ("banks", "exclude", "extend_exclude", "session_files"):
        if isinstance(s.get(key), list):
            changes[key] = tuple(str(b) for b in s[key])
        elif s.get(key) is not None:
            problems.append(f"{key} = {s[key]!r} is not a list: write {key} = [{s[key]!r}]")
    if "extend_exclude" in changes:
        added = changes.pop("extend_exclude")
        base = changes.get("exclude", config.exclude)
        changes["exclude"] = (*base, *(g for g in added if g not in base))
    for key in ("index_budget_tokens", "file_budget_tokens"):
        budget = s.get(key)
        if isinstance(budget, int) and not isinstance(budget, bool) and budget > 0:
            changes[key] = budget
        elif budget is not None:
            problems.append(f"{key} = {budget!r} is not a positive number of tokens")
    index = s.get("index")
    if isinstance(index, dict):
        if isinstance(index.get("updateOnSave", index.get("update_on_save")), bool):
            changes["index_update_on_save"] = index.get("updateOnSave", index.get("update_on_save"))
        budget = index.get("budgetTokens", index.get("budget_tokens"))
        if isinstance(budget, int) and not isinstance(budget, bool) and budget > 0:
            changes["index_budget_tokens"] = budget
        if index.get("format") in INDEX_FORMATS:
            changes["index_format"] = index["format"]
    diags = s.get("diagnostics")
    if isinstance(diags, dict):
        merged = dict(config.diagnostics)
        for code, sev in diags.items():
            code = str(code).upper()
            if code not in CODES:
                first, last = min(CODES), max(CODES)
                problems.append(f"diagnostics.{code} is not a diagnostic code ({first} to {last})")
                continue
            if str(sev).lower() not in _SEVERITIES:
                problems.append(
                    f"diagnostics.{code} = {sev!r} is not a severity: use error, warning, information, hint or off"
                )
                continue
            merged[code] = _SEVERITIES[str(sev).lower()]
        changes["diagnostics"] = merged
    llm = s.get("llm")
    if isinstance(llm, dict):
        changes["llm"] = _merge_llm(config.llm, llm, problems)
    changes["problems"] = tuple(problems)
    return config.replace(**changes)


def _merge_llm(llm: LlmConfig, s: dict[str, Any], problems: list[str]) -> LlmConfig:
    changes: dict[str, Any] = {}
    provider = s.get("provider")
    if provider is not None:
        if provider in PROVIDERS:
            changes["provider"] = provider
        else:
            problems.append(f"llm.provider = {provider!r} is not one of {', '.join(PROVIDERS)}")
    for key, name in (
        ("model", "model"),
        ("base_url", "base_url"),
        ("baseUrl", "base_url"),
        ("command", "command"),
    ):
        if isinstance(s.get(key), str) and s[key]:
            changes[name] = s[key]
    count = s.get("candidates")
    if count is not None:
        if isinstance(count, int) and not isinstance(count, bool) and 1 <= count <= 1000:
            changes["candidates"] = count
        else:
            problems.append(f"llm.candidates = {count!r} is not a number of concepts from 1 to 1000")
    timeout = s.get("timeout")
    if timeout is not None:
        if valid_timeout(timeout):
            changes["timeout"] = float(timeout)
        else:
            problems.append(
                f"llm.timeout = {timeout!r} is not a number of seconds above 0 and at most "
                f"{MAX_TIMEOUT:g}; {llm.timeout:g} s is used"
            )
    return llm.replace(**changes)


def valid_timeout(value: object) -> bool:
    """Whether ``value`` is a usable deadline in seconds (not inf, nan, 0 or negative)."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 < value <= MAX_TIMEOUT
    )


def banks_named_in(folder: Path, problems: list[str] | None = None) -> list[Path]:
    """The banks ``folder``'s ``.ckp.toml`` names (``banks = [...]``), relative to ``folder`` and
    inside it (those outside are left out, and said so in ``problems``)."""
    path = folder / CONFIG_NAME
    if not path.is_file():
        return []
    toml = _toml()
    try:
        data = toml.loads(config_text(path, repository_of(folder)))
    except (OSError, UnicodeDecodeError, toml.TOMLDecodeError):
        return []  # load_config reports what is wrong with the file
    banks = confined(folder, {"banks": data.get("banks")}, [] if problems is None else problems)["banks"]
    return [(folder / str(b)).resolve() for b in banks] if isinstance(banks, list) else []


def configured_banks(folder: Path, problems: list[str] | None = None) -> list[Path]:
    """The banks named in the ``.ckp.toml`` files of ``folder`` and above it, up to the repository root."""
    out: list[Path] = []
    for f in config_chain(folder):
        out.extend(banks_named_in(f, problems))
    return out


def config_for_bank(bank_root: Path, base: Config | None = None) -> Config:
    """Config of a bank: the user's file (or ``base``), the ``.ckp.toml`` files from the repository
    (or filesystem) root down to the bank, then the environment."""
    base = user_config() if base is None else base
    return with_environment(load_config(*reversed(config_chain(bank_root)), base=base))


def config_chain(folder: Path) -> list[Path]:
    """The folders whose ``.ckp.toml`` apply to ``folder``: it and those above, to the repository
    root. Outside a repository the search stops below the home folder and ``/`` (your own settings
    live in the user config, not in a ``~/.ckp.toml`` any project would pick up) and at the edge
    of ``folder``'s file system (a mount point: another disk, a network share)."""
    never = never_projects(folder)
    try:
        device: int | None = os.stat(folder).st_dev
    except OSError:
        device = None
    chain = []
    for f in (folder, *folder.parents):
        if f in never and f != folder:
            break
        try:
            if device is not None and os.stat(f).st_dev != device:
                break
        except OSError:
            break
        chain.append(f)
        if (f / ".git").exists():
            break
    return chain
