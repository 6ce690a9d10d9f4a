"""What `pip install .` ships: every folder of code is a package (setuptools leaves out the others)."""

from __future__ import annotations

from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parent.parent


def test_every_folder_of_code_is_a_package_the_wheel_carries() -> None:
    shipped = set(find_packages(str(ROOT), include=["dsh", "dsh.*"]))
    folders = {
        ".".join(path.relative_to(ROOT).parts)
        for path in (ROOT / "dsh").rglob("*")
        if path.is_dir() and path.name != "__pycache__" and any(path.glob("*.py"))
    }
    assert folders - shipped == set(), "folders of code without an __init__.py are left out of the wheel"


def test_the_shell_integration_scripts_are_package_data() -> None:
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["dsh.share"]
    shipped = {
        path.relative_to(ROOT / "share").as_posix() for path in (ROOT / "share" / "shell").rglob("*") if path.is_file()
    }
    import fnmatch

    assert all(any(fnmatch.fnmatch(name, pattern) for pattern in data) for name in shipped), shipped
