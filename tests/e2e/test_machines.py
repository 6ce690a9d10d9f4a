"""Other machines over a real sshd on 127.0.0.1: `dsh machines` and `dsh sessions --machine(s)`, with
a machine that is down, one that sends hostile rows, one with an old dsh, one that wants a password."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from dsh import __version__
from tests.e2e.machines_fixture import Box, write_config
from tests.hostile import RAW_CONTROLS

pytestmark = pytest.mark.slow


def run(
    dsh_cmd: list[str], dsh_env: dict[str, str], *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*dsh_cmd, *args], env=dsh_env, cwd=cwd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )


def test_machines_says_which_answer_and_their_version(box: Box, dsh_cmd: list[str], dsh_env: dict[str, str]) -> None:
    done = run(dsh_cmd, dsh_env, "machines", "--json")
    assert done.returncode == 0, done.stderr
    answers = {row["name"]: row for row in json.loads(done.stdout)}
    assert answers["box"]["answers"], answers["box"]["error"]
    assert answers["box"]["version"] == __version__
    assert not answers["gone"]["answers"]
    assert "does not answer" in answers["gone"]["error"]
    table = run(dsh_cmd, dsh_env, "machines")
    assert "box" in table.stdout and __version__ in table.stdout
    assert "gone does not answer" in table.stderr


def test_sessions_of_another_machine_are_listed_with_its_name(
    box: Box, dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    work = tmp_path / "remote-project"
    work.mkdir()
    ids = box.make_sessions(work, "fix the flaky build", "write the release notes")
    done = run(dsh_cmd, dsh_env, "sessions", "--machine", "box", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert sorted(row["id"] for row in rows) == sorted(ids)
    assert {row["machine"] for row in rows} == {"box"}
    assert {row["title"] for row in rows} == {"fix the flaky build", "write the release notes"}
    # The listing went through one ControlMaster, kept for the next listing.
    from dsh.machines.config import Machine
    from dsh.machines.ssh import control_path

    assert control_path(Machine("box", "box")).exists()
    table = run(dsh_cmd, dsh_env, "sessions", "--machines")
    assert table.returncode == 0
    assert "fix the flaky build" in table.stdout and "box" in table.stdout
    assert "gone does not answer" in table.stderr  # one line for the machine that is down; the rest listed


def test_a_hostile_machine_is_shown_safely(
    box: Box, dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    liar = tmp_path / "liar"
    good = {"id": "20260101T000000Z-aaaaaa", "state": "closed", "title": "\x1b]0;owned\x07evil \u202etitle\x1b[2J"}
    liar.write_text(
        "#!/bin/sh\necho 'dsh 9.9.9'\n[ \"$1\" = --version ] && exit 0\n"
        "echo '['\n"
        f"echo '{json.dumps(good)},'\n"
        'echo \'{"id": "../../etc/passwd", "state": "closed"},\'\n'
        "echo 'not json at all,'\n"
        'echo \'{"id": "20260101T000000Z-bbbbbb", "state": "exploded"}\'\n'
        "echo ']'\n"
    )
    liar.chmod(0o755)
    box.dsh = str(liar)
    write_config(dsh_home, box)
    done = run(dsh_cmd, dsh_env, "sessions", "--machine", "box")
    assert done.returncode == 0, done.stderr
    for raw in RAW_CONTROLS:
        assert raw not in done.stdout and raw not in done.stderr
    assert "20260101T000000Z-aaaaaa" in done.stdout and "evil" in done.stdout
    assert "passwd" not in done.stdout
    assert "box sent 3 rows that are not sessions" in done.stderr


def test_an_older_dsh_there_says_what_to_upgrade(
    box: Box, dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    old = tmp_path / "old-dsh"
    old.write_text(
        "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'dsh 0.0.1'; exit 0; }\n"
        "echo 'usage: dsh [-h]' >&2\necho \"dsh: error: unrecognized arguments: $*\" >&2\nexit 2\n"
    )
    old.chmod(0o755)
    box.dsh = str(old)
    write_config(dsh_home, box)
    done = run(dsh_cmd, dsh_env, "sessions", "--machine", "box")
    assert done.returncode == 1
    assert f"box runs dsh 0.0.1, this is dsh {__version__}" in done.stderr
    assert "upgrade dsh there" in done.stderr


def test_a_machine_that_wants_a_password_never_hangs_the_listing(
    box: Box, dsh_cmd: list[str], dsh_env: dict[str, str], dsh_home: Path
) -> None:
    # No key for it: sshd would ask for a password, which a listing (BatchMode) never does.
    config = box.sshd.config.read_text().replace("IdentityFile", "IdentityFile /nonexistent #")
    box.sshd.config.write_text(config)
    env = {**dsh_env, "SSH_AUTH_SOCK": ""}
    done = run(dsh_cmd, env, "sessions", "--machine", "box")
    assert done.returncode == 1
    assert "wants a password or a key" in done.stderr and "ssh-copy-id" in done.stderr


def test_an_unknown_machine_is_named(box: Box, dsh_cmd: list[str], dsh_env: dict[str, str]) -> None:
    done = run(dsh_cmd, dsh_env, "sessions", "--machine", "nope")
    assert done.returncode == 2
    assert "no machine 'nope' in config (known: box, gone)" in done.stderr
    assert os.environ.get("DSH_HOME")
