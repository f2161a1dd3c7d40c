"""A wheel must carry everything explorer reads at run time: its packages, the queries and the
bundled tree. (`.ci/run` also installs a wheel into a fresh environment and traces with it.)"""

from __future__ import annotations

import fnmatch
import shutil
import tomllib
from pathlib import Path

from explorer.index.schema import extraction_fingerprint, fingerprint_of

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
    assert SETUPTOOLS["package-dir"] == {
        "explorer._data.grammars": "grammars",
        "explorer._data.sample_repo": "sample_repo",
    }
    grammars = sorted(
        p.relative_to(CHECKOUT / "grammars").as_posix() for p in (CHECKOUT / "grammars").rglob("*") if p.is_file()
    )
    patterns = SETUPTOOLS["package-data"]["explorer._data.grammars"]
    assert [p for p in grammars if not any(fnmatch.fnmatch(p, pattern) for pattern in patterns)] == []
    assert SETUPTOOLS["package-data"]["explorer._data.sample_repo"] == ["**/*"]


def test_a_wheel_and_a_checkout_of_the_same_parsers_write_indexes_each_can_use(tmp_path: Path):
    """The two lay grammars/ out differently (beside the package, inside it as _data) and may
    share one cache folder: their fingerprints must agree, or each rebuilds the other's index."""
    checkout, wheel = tmp_path / "checkout", tmp_path / "wheel"
    shutil.copytree(CHECKOUT / "explorer" / "parsers", checkout / "explorer" / "parsers")
    shutil.copytree(CHECKOUT / "grammars", checkout / "grammars")
    shutil.copytree(CHECKOUT / "explorer" / "parsers", wheel / "explorer" / "parsers")
    shutil.copytree(CHECKOUT / "grammars", wheel / "explorer" / "_data" / "grammars")
    index = CHECKOUT / "explorer" / "index"
    naming = (index / "rows.py", index / "linking.py", index / "module_parameters.py")  # the same files in both
    fingerprint = fingerprint_of(checkout / "explorer" / "parsers", checkout / "grammars", naming)
    assert (
        fingerprint_of(wheel / "explorer" / "parsers", wheel / "explorer" / "_data" / "grammars", naming) == fingerprint
    )
    assert fingerprint == extraction_fingerprint()
    query = next((wheel / "explorer" / "_data" / "grammars").rglob("*.scm"))
    query.write_text(query.read_text() + "\n; changed\n")
    assert (
        fingerprint_of(wheel / "explorer" / "parsers", wheel / "explorer" / "_data" / "grammars", naming) != fingerprint
    )
