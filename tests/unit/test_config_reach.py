"""How far up ``.ckp.toml`` files are read outside a repository: not from the home folder or
``/``, nor across the edge of the bank's file system."""

from __future__ import annotations

from pathlib import Path

import pytest

from ckp_lsp.core.project import config as config_module
from ckp_lsp.core.project.config import config_chain, config_for_bank


def test_a_ckp_toml_in_the_home_folder_is_not_a_projects_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    bank = home / "notes" / "memory-bank"
    bank.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    (home / ".ckp.toml").write_text('staleness = "mtime"\n')
    assert config_for_bank(bank).staleness == "validated"
    assert home not in config_chain(bank)
    (home / "notes" / ".ckp.toml").write_text('staleness = "mtime"\n')
    assert config_for_bank(bank).staleness == "mtime"  # the project's own folder still counts


def test_the_search_stops_at_the_edge_of_the_file_system(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bank = tmp_path / "mnt" / "share" / "memory-bank"
    bank.mkdir(parents=True)
    (tmp_path / ".ckp.toml").write_text('staleness = "mtime"\n')
    real_stat = config_module.os.stat
    mount = tmp_path / "mnt"

    class Moved:
        def __init__(self, st: object) -> None:
            self.st_dev = -1
            self._st = st

    def stat(path: object, *args: object, **kwargs: object) -> object:
        st = real_stat(path, *args, **kwargs)  # type: ignore[arg-type]
        inside = Path(str(path)) == mount or mount in Path(str(path)).parents
        return st if inside else Moved(st)  # everything above the mount point: another device

    monkeypatch.setattr(config_module.os, "stat", stat)
    chain = config_chain(bank)
    monkeypatch.undo()
    assert chain == [bank, bank.parent, mount]
