"""The end-to-end tests' shared fixture: the installed dsh started in real PTYs, closed when the test ends."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.e2e.machines_fixture import box  # noqa: F401  (the other machine, for tests/e2e/test_machines*.py)
from tests.e2e.ptydriver import PtyDriver

Launch = Callable[..., PtyDriver]


@pytest.fixture
def launch(dsh_cmd: list[str]) -> Iterator[Launch]:
    """`launch(*args, cwd=, env=, rows=, cols=)` runs `dsh *args` in its own PTY; every one started is
    closed after the test. Each test module wraps it with its own defaults."""
    drivers: list[PtyDriver] = []

    def start(*args: str, cwd: Path, env: dict[str, str], rows: int, cols: int) -> PtyDriver:
        driver = PtyDriver([*dsh_cmd, *args], env=env, cwd=cwd, rows=rows, cols=cols)
        drivers.append(driver)
        return driver

    yield start
    for driver in drivers:
        driver.close()
