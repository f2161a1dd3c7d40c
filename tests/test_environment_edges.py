"""What the environment may hold that a careful user meets: an empty --root, an empty or
relative $HOME or $XDG_CACHE_HOME. Each says what it uses or one clear line."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from explorer.errors import UsageError
from explorer.folders import cache_folder
from tests.command_line import invoke


def test_an_empty_root_is_refused_not_the_sample_tree():
    result = invoke(["search", "relu", "--root", ""])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "error: --root is empty: name a folder (without --root, the bundled sample tree is used)\n"


@pytest.mark.parametrize("home", ["", "/", "relative/home"])
def test_an_empty_or_relative_home_is_not_where_the_cache_goes(monkeypatch, home):
    monkeypatch.delenv("EXPLORER_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", home)
    account = pwd.getpwuid(os.getuid()).pw_dir
    if account in ("", "/"):
        with pytest.raises(UsageError, match="set EXPLORER_CACHE_DIR"):
            cache_folder()
    else:
        assert cache_folder() == Path(account) / ".cache" / "explorer"


def test_a_relative_xdg_cache_home_is_ignored_as_the_specification_says(monkeypatch, tmp_path):
    monkeypatch.delenv("EXPLORER_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", "not/absolute")
    assert cache_folder() == tmp_path / ".cache" / "explorer"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_folder() == tmp_path / "xdg" / "explorer"
