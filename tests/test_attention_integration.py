"""`dsh integration`: dsh's hooks in the user's own agent settings, idempotent, reversible, never
over a concurrent edit, doing nothing outside a dsh pane."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from dsh.agents import integration
from dsh.agents.hook_launch import MARK
from dsh.agents.integration import IntegrationError, install, remove, status


def test_claude_install_is_idempotent_keeps_the_user_s_own_and_remove_takes_only_dsh_s(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    mine = {"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}
    path.write_text(json.dumps(mine))
    assert not status("claude", env)
    install("claude", env)
    once = path.read_text()
    install("claude", env)
    assert path.read_text() == once and status("claude", env)
    data = json.loads(once)
    assert data["model"] == "opus" and data["hooks"]["Stop"][0] == mine["hooks"]["Stop"][0]
    assert sum(MARK in json.dumps(g) for groups in data["hooks"].values() for g in groups) == 8
    remove("claude", env)
    assert json.loads(path.read_text()) == mine and not status("claude", env)
    assert "nothing to remove" in remove("claude", env)


def test_the_hook_does_nothing_outside_a_dsh_pane(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    install("claude", env)
    data = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    command = data["hooks"]["Stop"][0]["hooks"][0]["command"]
    done = subprocess.run(["/bin/sh", "-c", command], input="{}", capture_output=True, text=True, timeout=10,
                          env={"PATH": "/usr/bin:/bin"})  # fmt: skip
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""


def test_a_concurrent_edit_and_a_broken_file_are_never_clobbered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"HOME": str(tmp_path)}
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{broken")
    with pytest.raises(IntegrationError, match="not JSON"):
        install("claude", env)
    assert path.read_text() == "{broken"
    path.write_text("{}")
    read = integration._read

    def edited_meanwhile(p: Path):  # the agent rewrites its settings between dsh's read and write
        data, seen = read(p)
        p.write_text('{"theirs": true}')
        return data, seen

    monkeypatch.setattr(integration, "_read", edited_meanwhile)
    with pytest.raises(IntegrationError, match="changed while"):
        install("claude", env)
    monkeypatch.setattr(integration, "_read", read)
    assert json.loads(path.read_text()) == {"theirs": True}


def test_codex_gets_a_notify_unless_it_has_one(tmp_path: Path) -> None:
    env = {"CODEX_HOME": str(tmp_path)}
    path = tmp_path / "config.toml"
    path.write_text('model = "o"\n[tui]\nnotifications = true\n')
    install("codex", env)
    install("codex", env)
    import tomllib

    config = tomllib.loads(path.read_text())
    assert config["model"] == "o" and config["tui"] == {"notifications": True}
    assert config["notify"][-2:] == ["--hook", "codex"] and path.read_text().count(MARK) == 1
    remove("codex", env)
    assert path.read_text() == 'model = "o"\n[tui]\nnotifications = true\n'
    path.write_text('notify = ["mine"]\n')
    with pytest.raises(IntegrationError, match="does not replace yours"):
        install("codex", env)
