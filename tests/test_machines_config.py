"""The machines in config and what a machine sends, as pure models: checked, bounded, sanitized."""

from __future__ import annotations

import json

from dsh.config.model import Config
from dsh.machines.config import read_machines
from dsh.machines.rows import RowReader, session_row
from dsh.machines.ssh import batch_argv, explain, remote_command


def config(table: dict) -> Config:
    return Config(data={"machines": table})


def test_machines_are_read_and_bad_entries_left_out_with_a_reason() -> None:
    got = read_machines(
        config(
            {
                "ssh_command": "ssh -F /tmp/cfg",
                "devbox": {"ssh": "me@devbox", "dsh": "~/bin/dsh"},
                "laptop": {"ssh": "laptop"},
                "evil": {"ssh": "-oProxyCommand=touch /tmp/x"},
                "spaced": {"ssh": "a b"},
                "notatable": "me@host",
            }
        )
    )
    assert [m.name for m in got.machines] == ["devbox", "laptop"]
    assert got.machines[1].dsh == "dsh"
    assert got.ssh_command == ["ssh", "-F", "/tmp/cfg"]
    assert len(got.warnings) == 3
    assert any("machines.evil" in w and "destination" in w for w in got.warnings)


def test_a_listing_runs_in_batch_mode_with_words_quoted() -> None:
    machine = read_machines(config({"box": {"ssh": "box", "dsh": "env A=1 dsh"}})).machines[0]
    argv = batch_argv(["ssh"], machine, ["sessions", "--json", "it's"], timeout=5)
    assert argv[:4] == ["ssh", "-T", "-o", "BatchMode=yes"]
    assert "ControlMaster=no" in argv and argv[-2] == "box"
    expected = "env A=1 dsh sessions --json 'it'\"'\"'s'"
    assert argv[-1] == remote_command(machine, ["sessions", "--json", "it's"]) == expected


def test_a_failure_is_said_as_what_to_do() -> None:
    machine = read_machines(config({"box": {"ssh": "me@box"}})).machines[0]
    assert "run `ssh me@box` once" in explain(machine, 255, "Host key verification failed.\r\n")
    assert "ssh-copy-id" in explain(machine, 255, "me@box: Permission denied (publickey).")
    assert "has no dsh" in explain(machine, 127, "sh: 1: dsh: not found")
    assert "did not answer in time" in explain(machine, None, "")


def test_rows_from_a_machine_are_checked_and_sanitized() -> None:
    reader = RowReader("box")
    lines = [
        "dsh 0.2.0",
        "[",
        json.dumps({"id": "20260101T000000Z-aaaaaa", "state": "detached", "title": "a\x1b[2Jb", "pane_count": 3}) + ",",
        json.dumps({"id": "../x", "state": "closed"}) + ",",
        json.dumps({"id": "20260101T000000Z-bbbbbb", "state": "closed", "pane_count": "many", "preview": "x"}) + ",",
        "{broken",
        json.dumps([1, 2]),
        "]",
    ]
    for line in lines:
        reader.feed(line.encode())
    assert reader.version_number() == "0.2.0"
    rows = reader.take()
    assert [r["id"] for r in rows] == ["20260101T000000Z-aaaaaa", "20260101T000000Z-bbbbbb"]
    assert rows[0]["title"] == "a^[[2Jb" and rows[0]["machine"] == "box" and rows[0]["pane_count"] == 3
    assert rows[1]["pane_count"] == 0 and rows[1]["preview"] == [] and rows[1]["title"] == rows[1]["id"]
    assert reader.bad == 3
    assert session_row({"id": "20260101T000000Z-cccccc", "state": "gone"}, "box") is None


def test_a_huge_listing_stops_being_read() -> None:
    reader = RowReader("box")
    reader.feed("dsh 0.2.0")
    line = json.dumps({"id": "20260101T000000Z-aaaaaa", "state": "closed", "title": "x" * 1000}) + ","
    for _ in range(70_000):
        reader.feed(line)
        if reader.too_big:
            break
    assert reader.too_big
    assert len(reader.take()) < 70_000


def test_the_machines_scope_lists_rows_as_they_come_and_names_the_failing_machine() -> None:
    from dsh.resume.candidates import remote_candidate
    from dsh.resume.picker import MACHINES, WORKSPACE, PickerModel

    model = PickerModel([], current_cwd="/here", now=1_800_000_000.0)
    model.toggle_machines()
    assert model.scope == MACHINES and "No machines in config" in model.empty_message()
    model.asking_machines(["box", "gone"])
    assert "Asking 2 machines" in model.empty_message()
    row = {"machine": "box", "id": "20260101T000000Z-aaaaaa", "state": "closed", "title": "deploy the api",
           "cwd": "/srv/api", "workspace_label": "/srv/api", "updated_at": "2026-01-01T00:00:00.000Z"}  # fmt: skip
    model.add_machine_rows([remote_candidate(row)])
    model.machine_done("box", None)
    model.machine_done("gone", "gone does not answer on ssh (gone): is it up, and sshd running?")
    assert [c.title for c in model.visible] == ["deploy the api"]
    assert model.selected is not None and model.selected.machine == "box"
    assert model.selected.key == "box/20260101T000000Z-aaaaaa"  # apart from a local session of that id
    assert "Machines · 1" in model.scope_line() and "gone does not answer" in model.scope_line()
    model.set_query("box")  # the machine's name is searched in this scope
    assert [c.title for c in model.visible] == ["deploy the api"]
    model.toggle_machines()
    assert model.scope == WORKSPACE and model.visible == []


def test_a_long_run_dir_keeps_ssh_sockets_short_and_private(tmp_path, monkeypatch) -> None:
    import os
    import stat

    from dsh.machines.config import Machine
    from dsh.machines.ssh import control_path

    home = tmp_path / ("h" * 90)
    monkeypatch.setenv("DSH_HOME", str(home))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    path = control_path(Machine("box", "me@box"))
    # ssh adds 17 characters to a master's socket path while it makes it; an address holds 107 bytes.
    assert len(os.fsencode(str(path))) <= 107 - 17
    assert str(home) not in str(path)
    info = os.lstat(path.parent)
    assert stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and info.st_mode & 0o077 == 0
    assert control_path(Machine("box", "me@box")) == path  # the same socket next time
    monkeypatch.setenv("DSH_HOME", str(tmp_path / ("k" * 90)))
    assert control_path(Machine("box", "me@box")) != path  # another home's masters kept apart


def test_a_machine_s_attention_is_off_unless_asked_and_bounded() -> None:
    got = read_machines(
        config(
            {
                "quiet": {"ssh": "quiet"},
                "watched": {"ssh": "watched", "attention_seconds": 30},
                "eager": {"ssh": "eager", "attention_seconds": 0.01},
                "typo": {"ssh": "typo", "attenton_seconds": 5},
            }
        )
    )
    assert [(m.name, m.attention) for m in got.machines] == [("quiet", 0.0), ("watched", 30.0), ("typo", 0.0)]
    assert any("machines.eager" in w and "attention_seconds" in w for w in got.warnings)
    # A key a machine does not have is the loader's to say, once (tests/test_config_unknown.py).
    assert not any("attenton_seconds" in w for w in got.warnings)


def test_agents_from_a_machine_are_checked_and_carry_its_name() -> None:
    from dsh.attention.rows import AgentRow

    reader = RowReader("box", attention=True)
    good = {"session": "20260101T000000Z-aaaaaa", "cwd": "/w", "pane": "p1", "state": "blocked"}
    lines = [
        "dsh 0.2.0",
        "[",
        json.dumps({**good, "message": "allow \x1b[2JBash", "machine": "elsewhere"}) + ",",
        json.dumps({**good, "session": "../../etc"}) + ",",  # not a session id
        json.dumps({**good, "state": "exploding"}) + ",",
        json.dumps({**good, "session": None}) + ",",  # no session and not outside: nowhere to go
        json.dumps({"session": None, "cwd": "/o", "pane": None, "state": "working", "outside": True}),
        "]",
    ]
    for line in lines:
        reader.feed(line)
    rows = [AgentRow.from_dict(item) for item in reader.take()]
    assert reader.bad == 3
    assert [(r.machine, r.session, r.state, r.outside) for r in rows if r] == [
        ("box", "20260101T000000Z-aaaaaa", "blocked", False),
        ("box", None, "working", True),
    ]
    assert rows[0] is not None and "\x1b" not in (rows[0].message or "")


def test_enter_on_another_machine_s_agent_focuses_its_pane_there_first() -> None:
    from dsh.machines.ssh import attach_argv

    machine = read_machines(config({"box": {"ssh": "box", "dsh": "env A=1 dsh"}})).machines[0]
    argv = attach_argv(["ssh"], machine, ["attach", "S"], before=["focus", "-t", "S:p2"])
    assert argv[:2] == ["ssh", "-t"] and argv[-2] == "box"
    assert argv[-1] == "env A=1 dsh focus -t S:p2; env A=1 dsh attach S"


def test_agents_of_another_machine_say_where_and_go_there() -> None:
    from dsh.attention.agents_list import agents_model, next_needing
    from dsh.attention.rows import AgentRow

    mine = AgentRow(session="S1", cwd="/here", pane="p1", state="working")
    theirs = AgentRow(session="S1", cwd="/there", session_title="deploy", pane="p1", state="blocked", machine="box")
    model = agents_model([mine, theirs], here="S1", now=0.0, home="/nowhere")
    assert model.title.startswith("agents on every machine")
    assert "box: deploy" in model.lines[0].text and model.lines[0].target is not None
    assert model.lines[0].target.machine == "box"
    # The same ids on another machine are another pane: C-b g goes there even from S1's p1.
    row = next_needing([mine, theirs], here="S1", current="p1")
    assert row is not None and row.machine == "box"
