"""A wheel must carry everything explorer reads at run time: its packages, the queries and the
bundled tree. (`.ci/run` also installs a wheel into a fresh environment and traces with it.)"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
SETUPTOOLS = tomllib.loads((CHECKOUT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_package_of_the_checkout_is_listed_for_the_wheel():
    on_disk = {
        ".".join(init.parent.relative_to(CHECKOUT).parts)
        for init in (CHECKOUT / "explorer").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    listed = set(SETUPTOOLS["packages"])
    assert on_disk - listed == set()
    assert listed - on_disk == {"explorer._data.grammars", "explorer._data.sample_repo"}


def test_the_data_folders_map_to_the_checkout_folders_and_take_every_file_explorer_reads():
    assert SETUPTOOLS["package-dir"] == {"explorer._data.grammars": "grammars", "explorer._data.sample_repo": "sample_repo"}
    grammars = sorted(p.relative_to(CHECKOUT / "grammars").as_posix() for p in (CHECKOUT / "grammars").rglob("*") if p.is_file())
    patterns = SETUPTOOLS["package-data"]["explorer._data.grammars"]
    assert [p for p in grammars if not any(fnmatch.fnmatch(p, pattern) for pattern in patterns)] == []
    assert SETUPTOOLS["package-data"]["explorer._data.sample_repo"] == ["**/*"]
