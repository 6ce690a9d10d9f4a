"""The hooks dsh gives an agent it starts: Claude's one --settings file (the user's hooks kept), Codex's
-c options, opencode's plugin; every file of the user's only read."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from dsh.agents import hook_launch
from dsh.agents.hook_launch import MARK, claude_argv, codex_argv, opencode_env, with_hooks


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def user_hook(name: str) -> dict:
    return {"hooks": [{"type": "command", "command": f"echo {name}"}]}


def test_claude_gets_one_settings_file_with_the_user_s_hooks_and_dsh_s(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "work"
    write(home / ".claude" / "settings.json", {"hooks": {"UserPromptSubmit": [user_hook("mine")]}, "model": "x"})
    write(cwd / ".claude" / "settings.json", {"hooks": {"Stop": [user_hook("project")]}})
    write(cwd / ".claude" / "settings.local.json", "{not json")
    settings = tmp_path / "out" / "claude-settings.json"
    argv = claude_argv(
        ["/usr/bin/claude", "--session-id", "u"], cwd=str(cwd), env={"HOME": str(home)}, settings_path=settings
    )
    assert argv == ["/usr/bin/claude", "--settings", str(settings), "--session-id", "u"]
    data = json.loads(settings.read_text())
    hooks = data["hooks"]
    prompt = hooks["UserPromptSubmit"]
    assert prompt[0] == user_hook("mine") and MARK in prompt[1]["hooks"][0]["command"]
    assert hooks["Stop"][0] == user_hook("project")
    ours = [group for groups in hooks.values() for group in groups if MARK in group["hooks"][0]["command"]]
    assert len(ours) == 8 and all(group["hooks"][0]["async"] is True for group in ours)
    assert {g.get("matcher") for g in hooks["PreToolUse"]} == {"AskUserQuestion"}
    assert "model" not in data  # the user's settings files are Claude's to read; only their hooks are copied
    command = ours[0]["hooks"][0]["command"]
    assert command.startswith('[ -z "$DSH_PANE_ID" ] || ') and "report --hook claude" in command
    assert settings.stat().st_mode & 0o077 == 0


def test_a_claude_with_its_own_settings_keeps_them_inside_dsh_s_file(tmp_path: Path) -> None:
    given = write(
        tmp_path / "work" / "mine.json",
        {"permissions": {"allow": ["Bash(ls)"]}, "hooks": {"Stop": [user_hook("given")]}},
    )
    settings = tmp_path / "out.json"
    env = {"HOME": str(tmp_path / "nohome")}
    argv = claude_argv(
        ["claude", "--settings", "mine.json", "hi"], cwd=str(given.parent), env=env, settings_path=settings
    )
    assert argv == ["claude", "--settings", str(settings), "hi"]
    data = json.loads(settings.read_text())
    assert data["permissions"] == {"allow": ["Bash(ls)"]} and data["hooks"]["Stop"][0] == user_hook("given")
    inline = claude_argv(["claude", '--settings={"model": "m"}'], cwd=str(tmp_path), env=env, settings_path=settings)
    assert inline == ["claude", "--settings", str(settings)] and json.loads(settings.read_text())["model"] == "m"
    # Settings dsh cannot read are left as given (the agent starts as the user asked, without dsh's hooks).
    assert claude_argv(["claude", "--settings", "gone.json"], cwd=str(tmp_path), env=env, settings_path=settings) == [
        "claude",
        "--settings",
        "gone.json",
    ]


def test_codex_gets_notify_and_its_tui_notifications_unless_the_user_has_a_notify(tmp_path: Path) -> None:
    argv = codex_argv(["codex", "resume", "abc"], env={"CODEX_HOME": str(tmp_path / "none")})
    assert argv[0] == "codex" and argv[-2:] == ["resume", "abc"]
    options = argv[1:-2]
    assert options[0::2] == ["-c"] * 4
    notify = options[1]
    assert notify.startswith("notify=") and json.loads(notify[len("notify=") :])[-2:] == ["--hook", "codex"]
    assert 'tui.notification_method="osc9"' in options and 'tui.notification_condition="always"' in options
    write(tmp_path / "home" / "config.toml", 'notify = ["my-notifier"]\n')
    kept = codex_argv(["codex"], env={"CODEX_HOME": str(tmp_path / "home")})
    assert not any(word.startswith("notify=") for word in kept) and "tui.notifications=true" in kept


def test_opencode_gets_a_plugin_through_opencode_config(tmp_path: Path) -> None:
    env = opencode_env({"PATH": "/bin"}, folder=tmp_path / "hooks")
    config = json.loads(Path(env["OPENCODE_CONFIG"]).read_text())
    plugin = Path(config["plugin"][0].removeprefix("file://"))
    source = plugin.read_text()
    assert "DSH_PANE_ID" in source and '"--hook", "opencode"' in source and "permission.asked" in source
    assert opencode_env({"OPENCODE_CONFIG": "/mine.json"}, folder=tmp_path) == {"OPENCODE_CONFIG": "/mine.json"}


def test_an_agent_always_starts_whatever_goes_wrong(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    argv, env = with_hooks("claude", ["claude"], cwd=str(tmp_path), env={"HOME": str(tmp_path)}, folder=blocker / "x")
    assert argv == ["claude"] and env == {"HOME": str(tmp_path)}
    assert with_hooks("cursor-agent", ["cursor-agent"], cwd="/", env={}, folder=tmp_path) == (["cursor-agent"], {})


def test_a_hook_run_in_a_checkout_of_dsh_runs_the_installed_dsh(tmp_path: Path) -> None:
    # The hook runs in the agent's folder; a `dsh/` there (someone working on dsh itself, or an older
    # checkout) must not be the package `python -m dsh` finds first.
    shadow = tmp_path / "dsh"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("")
    (shadow / "__main__.py").write_text("open('ran-the-shadow', 'w').close()\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    done = subprocess.run(
        hook_launch.report_command("claude"), cwd=tmp_path, input=b"{}", env=env, capture_output=True, timeout=30
    )
    assert not (tmp_path / "ran-the-shadow").exists()
    assert b"Traceback" not in done.stderr, done.stderr
