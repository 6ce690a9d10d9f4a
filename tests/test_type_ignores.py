"""Each `# type: ignore` in dsh names its error code and says why, and CI runs the type check."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
IGNORE = re.compile(r"# type: ignore(\[[a-z-]+(, [a-z-]+)*\])?(.*)$")
STRICT = ("dsh.session.*", "dsh.store.*", "dsh.persist.*", "dsh.protocol", "dsh.host.*", "dsh.client.*")


def unexplained(text: str) -> list[str]:
    """The ignores in `text` with no code, or with no reason after them on the line or above it (above a
    run of lines that each have one, for them all)."""
    lines = text.splitlines()
    out = []
    for number, line in enumerate(lines):
        found = IGNORE.search(line)
        if found is None:
            continue
        after = found.group(3).strip()
        first = number
        while first and IGNORE.search(lines[first - 1]) and not lines[first - 1].strip().startswith("#"):
            first -= 1
        above = lines[first - 1].strip() if first else ""
        if found.group(1) is None or not (after.startswith("#") or above.startswith("#")):
            out.append(f"{number + 1}: {line.strip()}")
    return out


def test_an_ignore_without_its_code_or_its_reason_is_found() -> None:
    assert unexplained("x = f()  # type: ignore\n") == ["1: x = f()  # type: ignore"]
    assert unexplained("x = f()  # type: ignore[misc]\n") == ["1: x = f()  # type: ignore[misc]"]
    assert unexplained("x = f()  # type: ignore[misc]  # f is patched in\n") == []
    assert unexplained("# f is patched in\nx = f()  # type: ignore[misc, arg-type]\n") == []
    assert unexplained("# both patched in\nx = f()  # type: ignore[misc]\ny = g()  # type: ignore[misc]\n") == []
    assert unexplained("x = f()\ny = g()  # type: ignore[misc]\n") == ["2: y = g()  # type: ignore[misc]"]


def test_every_ignore_in_dsh_names_its_code_and_its_reason() -> None:
    found = {
        str(path.relative_to(REPO)): bad
        for path in sorted((REPO / "dsh").rglob("*.py"))
        if (bad := unexplained(path.read_text()))
    }
    assert found == {}, "say why on the line or the one above: " + repr(found)


def test_ci_runs_mypy_strict_on_the_model_host_and_client() -> None:
    assert ".venv/bin/mypy\n" in (REPO / ".ci" / "run").read_text()
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["packages"] == ["dsh"]
    strict = [o for o in config["overrides"] if o.get("disallow_untyped_defs")]
    assert len(strict) == 1 and tuple(strict[0]["module"]) == STRICT
    # `strict = true` in an override would turn every strict flag on for every module.
    assert all("strict" not in o for o in config["overrides"])
    assert "ignore_missing_imports" not in config
