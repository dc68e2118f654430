"""git, run so that a repository cannot make it run a program: reading revisions for review
(``ckp check --changed``, ``ckp diff``), merging ``_index.md`` and installing its merge driver.

A cloned repository's own configuration may name programs git would run: hooks, an fsmonitor,
diff and textconv drivers, filters, a pager. Every call here turns those off on its command line
(which wins over every configuration file), reads blobs with ``cat-file blob`` and trees with
``ls-tree`` (no filter, no textconv), and compares the work tree with a revision by content here,
never through ``git diff`` or ``git status``, which would run the repository's clean filter.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

#: given on git's command line, above every configuration file: what could name a program
SAFE_SETTINGS = (
    "core.quotepath=off",  # non-ASCII names as they are, not "caf\\303\\251.md"
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "pager.log=false",
    "log.showSignature=false",
    "diff.external=",
    "gpg.program=false",
    "gpg.ssh.program=false",
    "gpg.x509.program=false",
    # a missing object of a partial clone is fetched from its promisor remote through the
    # transport the repository names (core.sshCommand, an ext:: URL): no transport at all
    "protocol.allow=never",
    "core.sshCommand=false",
)
#: the same, as git's leading options
HARDENED = ("--no-pager", *(a for setting in SAFE_SETTINGS for a in ("-c", setting)))
#: the environment git gets: no lazy fetch, no pager, no prompt, no lock taken
_ENV = {
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "false",
    "SSH_ASKPASS": "false",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_NO_REPLACE_OBJECTS": "1",
}
_UNSET = (
    "GIT_EXTERNAL_DIFF", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_PARAMETERS",
    "GIT_SSH", "GIT_SSH_COMMAND", "GIT_PROXY_COMMAND",
)  # fmt: skip
DRIVER_NAME = "ckp-index"
ATTRIBUTE = f"merge={DRIVER_NAME}"


class GitError(Exception):
    """git failed or is missing: the message says what to do."""


def git_env() -> dict[str, str]:
    """The environment every git run gets: this one's, less what could name a program."""
    return {k: v for k, v in os.environ.items() if k not in _UNSET} | _ENV


def git_command(where: Path, *args: str) -> list[str]:
    """The argument list that runs ``git ARGS`` in ``where`` with the hardened options."""
    return ["git", *HARDENED, "-C", str(where), *args]


def git(where: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """``git ARGS`` in ``where`` with the hardened options, its output as bytes."""
    try:
        done = subprocess.run(
            git_command(where, *args),
            capture_output=True,
            env=git_env(),
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took longer than 60 s") from None
    if check and done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {why[-1] if why else done.returncode}")
    return done


def repository_root(where: Path) -> Path:
    """The work tree that holds ``where``."""
    out = git(where, "rev-parse", "--show-toplevel").stdout.decode("utf-8", "surrogateescape").strip()
    return Path(out)


def resolve(root: Path, rev: str) -> str:
    """The commit ``rev`` names (``rev`` is never taken for an option)."""
    if rev.startswith("-"):
        raise GitError(f"'{rev}' is not a revision")
    out = git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}", check=False)
    if out.returncode != 0:
        raise GitError(f"'{rev}' names no commit of this repository")
    return out.stdout.decode().strip()


def tree_blobs(root: Path, commit: str, prefix: str) -> dict[str, str]:
    """path -> blob id of every file below ``prefix`` in ``commit`` (``ls-tree``: the work tree
    is never read, so no filter of the repository runs)."""
    args = ["ls-tree", "-r", "-z", "--full-tree", commit]
    if prefix:
        args += ["--", prefix]
    out = git(root, *args).stdout.decode("utf-8", "surrogateescape")
    blobs = {}
    for entry in out.split("\0"):
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob":
            blobs[path] = parts[2]
    return blobs


def blob_id(data: bytes) -> str:
    """The id git gives a blob of ``data`` (SHA-1), computed here rather than by a git that would
    run the repository's clean filter on the file."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def blob(root: Path, rev: str, path: str) -> bytes | None:
    """The bytes of ``path`` at the commit ``rev`` as stored (no filter, no textconv), or None."""
    out = git(root, "cat-file", "blob", f"{rev}:{path}", check=False)
    return out.stdout if out.returncode == 0 else None


def merge_file(ours: Path, base: Path, theirs: Path) -> int:
    """git's own three-way merge of one file into ``ours`` (conflict markers where both sides
    changed a line): the number of conflicts, 0 when clean."""
    done = git(
        ours.parent, "merge-file", "-L", "ours", "-L", "base", "-L", "theirs", str(ours), str(base), str(theirs),
        check=False,
    )  # fmt: skip
    if done.returncode < 0:
        raise GitError("git merge-file failed")
    return done.returncode


def driver_command() -> str:
    """The command git runs to merge ``_index.md``: the ``ckp`` installed beside this Python (the
    installation that installs the driver runs it), else this Python running the CLI module."""
    import shlex
    import shutil  # here, as shlex: the language server's start does not need them

    beside = Path(sys.executable).parent / ("ckp.exe" if os.name == "nt" else "ckp")
    if beside.is_file():
        program = shlex.quote(beside.as_posix())
    elif shutil.which("ckp"):
        program = "ckp"
    else:
        program = f"{shlex.quote(sys.executable)} -m ckp_lsp.cli.main"
    return f"{program} index --merge-driver %O %A %B %P"


def _manual(command: str) -> str:
    """How to install the driver by hand."""
    import shlex

    return (
        f"to install it by hand: git config merge.{DRIVER_NAME}.driver {shlex.quote(command)} "
        f"and add '<bank>/_index.md {ATTRIBUTE}' to .gitattributes"
    )


def _refuse_config(root: Path, command: str) -> None:
    """Refuse a repository whose config is not a file of its own ``.git`` folder: a ``.git`` file
    (``gitdir:`` names another folder, perhaps another repository's) or link, or a config that is
    a link out of the project; git would write there."""
    from ckp_lsp.core.project.within import inside

    dotgit = root / ".git"
    if dotgit.is_symlink() or not dotgit.is_dir():
        raise GitError(
            f"{dotgit} is not a folder of this project (a link, or a file naming another git "
            f"folder): nothing was written; {_manual(command)}"
        )
    config = dotgit / "config"
    if config.is_symlink() and not inside(config, root):
        raise GitError(
            f"{config} is a symbolic link that leads outside the project (to {os.path.realpath(config)}): "
            f"nothing was written; {_manual(command)}"
        )


def install_merge_driver(root: Path, bank_root: Path) -> list[str]:
    """Name the driver in ``.gitattributes`` and configure it in the repository's own config
    (``.git/config``, never the user's): what was done, empty when all of it was there already.
    Nothing is written through a link out of the project nor into another repository's config."""
    from ckp_lsp.core.edit.writes import WriteRefused, refusal, write_atomic
    from ckp_lsp.core.project.within import read_inside

    done: list[str] = []
    command = driver_command()
    config = root / ".git"
    rel = bank_root.resolve().relative_to(root.resolve()).as_posix()
    pattern = "_index.md" if rel == "." else f"{rel}/_index.md"
    line = f"{pattern.replace(' ', '[[:space:]]')} {ATTRIBUTE}"
    attributes = root / ".gitattributes"
    _refuse_config(root, command)
    why = refusal(attributes, within=root)
    if why:
        raise GitError(why.replace("outside the bank", "outside the project"))
    current = git(root, "config", "--local", "--get", f"merge.{DRIVER_NAME}.driver", check=False)
    if current.stdout.decode().strip() != command:
        git(root, "config", "--local", f"merge.{DRIVER_NAME}.name", "ckp: _index.md merged by its rows")
        git(root, "config", "--local", f"merge.{DRIVER_NAME}.driver", command)
        done.append(f"configured the merge driver {DRIVER_NAME} in {config / 'config'}")
    text = read_inside(attributes, root).text if attributes.is_file() else None
    if line not in (text or "").splitlines():
        old = text or ""
        sep = "" if not old or old.endswith("\n") else "\n"
        try:
            write_atomic(attributes, f"{old}{sep}{line}\n", expected=text, new_file=text is None, within=root)
        except WriteRefused as exc:
            raise GitError(str(exc).replace("outside the bank", "outside the project")) from None
        done.append(f"added '{line}' to {attributes}")
    return done


@dataclass(frozen=True)
class BankChange:
    """A knowledge file of a bank changed since a commit: its texts then and now (None: absent)."""

    rel: str  # relative to the bank root
    old: str | None
    new: str | None


def bank_changes(bank_root: Path, exclude: Iterable[str], base: str) -> tuple[str, list[BankChange]]:
    """The commit ``base`` names, and the knowledge files of the bank at ``bank_root`` that differ
    between it and the files on disk (committed or not)."""
    from ckp_lsp.core.format.text import decode
    from ckp_lsp.core.project.discovery import knowledge_files, why_not_knowledge
    from ckp_lsp.core.project.within import Folder

    root = repository_root(bank_root)
    commit = resolve(root, base)
    prefix = bank_root.resolve().relative_to(root.resolve()).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    exclude = list(exclude)
    then = {
        path[len(prefix) :]: sha
        for path, sha in tree_blobs(root, commit, prefix).items()
        if path.startswith(prefix) and why_not_knowledge(path[len(prefix) :], exclude) is None
    }
    now = set(knowledge_files(bank_root, exclude, {}))
    disk = Folder(bank_root)
    out = []
    for rel in sorted(now | then.keys()):
        data = None
        if rel in now:
            try:
                data = disk.bytes_of(bank_root / rel)
            except OSError:
                data = None
        if data is not None and then.get(rel) == blob_id(data):
            continue
        old_blob = blob(root, commit, prefix + rel) if rel in then else None
        old = decode(old_blob)[0] if old_blob is not None else None
        new = decode(data)[0] if data is not None else None
        if old != new:
            out.append(BankChange(rel, old, new))
    return commit, out
