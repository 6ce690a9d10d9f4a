"""With the real agent CLIs from npm (in a scratch prefix, never global, DISABLE_AUTOUPDATER=1): the
--settings file and -c options dsh passes are accepted by the versions dsh.attention.versions names,
and Claude Code runs dsh's hooks, which reach the pane's host through `dsh report`, beside the user's
own hook (once). Skipped, with the reason, where npm cannot install them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

PREFIX = Path(os.environ.get("DSH_TEST_NPM_PREFIX", "/tmp/dsh-test-npm"))
PACKAGES = {
    "claude": "@anthropic-ai/claude-code@2.1.197",
    "codex": "@openai/codex@0.171.0",
    "opencode": "opencode-ai@1.18.33",
}


def real_cli(name: str) -> Path:
    binary = PREFIX / name / "node_modules" / ".bin" / name
    if binary.exists():
        return binary
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed: the real CLI cannot be fetched")
    done = subprocess.run(
        ["npm", "install", "--prefix", str(PREFIX / name), PACKAGES[name]],
        env={**os.environ, "DISABLE_AUTOUPDATER": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0 or not binary.exists():
        pytest.skip(f"npm could not install {PACKAGES[name]}: {done.stderr.strip()[-200:]}")
    return binary


def dsh(dsh_cmd: list[str], *args: str, env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run([*dsh_cmd, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_real_claude_runs_dsh_s_hooks_into_the_pane_and_the_user_s_hook_once(dsh_cmd, dsh_env, tmp_path: Path) -> None:
    claude = real_cli("claude")
    from dsh.agents.hook_launch import claude_argv

    work, home = tmp_path / "work", tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    work.mkdir()
    mine = tmp_path / "mine.log"
    user = {
        "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"cat >> {mine}; echo >> {mine}"}]}]}
    }
    (home / ".claude" / "settings.json").write_text(json.dumps(user))
    session = json.loads(dsh(dsh_cmd, "new", "-d", "--json", env=dsh_env, cwd=work))["session"]
    listed = json.loads(dsh(dsh_cmd, "list", "--all", "--json", env=dsh_env, cwd=work))
    host = next(s for s in listed if s["id"] == session)
    pane = host["tabs"][0]["panes"][0]["id"]
    env = {
        **dsh_env,
        "HOME": str(home),
        "DISABLE_AUTOUPDATER": "1",
        "ANTHROPIC_API_KEY": "sk-ant-not-a-key",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",  # nothing listens: the prompt's turn fails at once
        "DSH_SESSION_ID": session,
        "DSH_PANE_ID": pane,
        "DSH_SOCKET": host["socket"],
    }
    env.pop("CLAUDE_CONFIG_DIR", None)
    argv = claude_argv([str(claude), "-p", "hello from the real claude"], cwd=str(work), env=env,
                       settings_path=tmp_path / "hooks" / "claude-settings.json")  # fmt: skip
    assert argv[1] == "--settings"
    # Its hooks run before the model is asked (which then retries an address nobody listens on).
    agent = subprocess.Popen(argv, env=env, cwd=work, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        # A first run in a fresh HOME makes opencode's database and looks for its models' list: 25 s at
        # load 5, 42 s at load 8 on two cores; the wait ends as soon as the state comes.
        deadline = time.monotonic() + 180
        state = None
        while time.monotonic() < deadline:
            listed = json.loads(dsh(dsh_cmd, "list", "--all", "--json", env=dsh_env, cwd=work))
            state = next(s for s in listed if s["id"] == session)["tabs"][0]["panes"][0]["agent_state"]
            if state is not None and state["message"] == "hello from the real claude" and mine.exists():
                break
            time.sleep(0.3)
    finally:
        agent.kill()
        agent.wait()
        dsh(dsh_cmd, "stop", session, env=dsh_env, cwd=work)
    assert state is not None and state["message"] == "hello from the real claude" and state["source"] == "hook"
    prompts = [json.loads(line)["prompt"] for line in mine.read_text().splitlines() if line.strip()]
    assert prompts == ["hello from the real claude"]  # the user's own hook: once, beside dsh's


def test_real_codex_accepts_the_options_dsh_gives_it(tmp_path: Path) -> None:
    codex = real_cli("codex")
    from dsh.agents.hook_launch import codex_argv

    home = tmp_path / "codex-home"
    home.mkdir()
    argv = codex_argv([str(codex), "exec", "--skip-git-repo-check", "hello"], env={"CODEX_HOME": str(home)})
    env = {**os.environ, "CODEX_HOME": str(home), "OPENAI_API_KEY": "sk-not-a-key", "DISABLE_AUTOUPDATER": "1",
           "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}  # fmt: skip
    # Until it starts the turn (it then retries the address nobody listens on for minutes). A fixed 15 s
    # wait once ended in CI, on a loaded machine, before it had printed more than its first warning.
    out = output_until(argv, "user\nhello", env=env, cwd=tmp_path, timeout=90)
    # It read the options and started the turn (which then fails: nothing listens there).
    assert "OpenAI Codex v0.171.0" in out and "user\nhello" in out, out[-2000:]
    assert "error loading config" not in out.lower() and "unrecognized" not in out.lower()


def output_until(argv: list[str], marker: str, *, env: dict[str, str], cwd: Path, timeout: float) -> str:
    """What `argv` writes (stdout and stderr as one) until `marker` is in it, or `timeout` s; then it is
    killed."""
    import select

    child = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)  # fmt: skip
    assert child.stdout is not None
    got = b""
    deadline = time.monotonic() + timeout
    try:
        while marker.encode() not in got and (left := deadline - time.monotonic()) > 0:
            if select.select([child.stdout], [], [], min(left, 1.0))[0]:
                chunk = os.read(child.stdout.fileno(), 65536)
                if not chunk:
                    break
                got += chunk
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
    return got.decode("utf-8", "replace")


def listed_hook(codex: Path, hook: str, *, env: dict[str, str], cwd: Path) -> dict[str, object]:
    """The one hook `codex app-server -c HOOK` lists (its hooks/list, as Codex's own TUI asks it)."""
    import select

    server = subprocess.Popen(
        [str(codex), "app-server", "-c", hook],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd,
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None
    try:
        requests = [
            {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "dsh", "version": "0"}}},
            {"method": "initialized"},
            {"id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}},
        ]
        server.stdin.write(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
        server.stdin.flush()
        deadline = time.monotonic() + 90  # its first start in a fresh CODEX_HOME, on a loaded machine
        while time.monotonic() < deadline:
            if select.select([server.stdout], [], [], 1)[0]:
                line = server.stdout.readline()
                if not line:
                    raise AssertionError(f"codex app-server ended ({server.wait()}) before listing the hook")
                message = json.loads(line)
                if message.get("id") == 2:
                    [entry] = message["result"]["data"][0]["hooks"]
                    return dict(entry)
        raise AssertionError("codex app-server did not list the hook")
    finally:
        server.kill()
        server.wait()


def test_real_codex_runs_a_launch_s_hooks_only_with_every_hook_trusted(tmp_path: Path) -> None:
    """Why dsh gives Codex `notify` and OSC 9, not hooks (dsh.attention.versions): a hook given with -c
    runs only after a trust step; the trust a launch could give for dsh's own hook alone (its
    `hooks.state.KEY.trusted_hash`, the key and hash the app-server's hooks/list reports) is ignored
    from the command line, and the one flag that runs it runs every untrusted hook of the user's too.
    When a version stops ignoring it, this fails, and dsh can wire PermissionRequest there."""
    codex = real_cli("codex")
    home = tmp_path / "codex-home"
    home.mkdir()
    mark = tmp_path / "hook.log"
    hook = f'hooks.SessionStart=[{{hooks=[{{type="command",command="echo started >> {mark}"}}]}}]'
    key = "/<session-flags>/config.toml:session_start:0:0"
    env = {**os.environ, "CODEX_HOME": str(home), "OPENAI_API_KEY": "sk-not-a-key", "DISABLE_AUTOUPDATER": "1",
           "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}  # fmt: skip

    def run(*options: str) -> str:
        argv = [str(codex), "exec", "--skip-git-repo-check", "-c", hook, *options, "hello"]
        # Until the turn's first request has failed (it retries for minutes): SessionStart's hooks have
        # run by then, or never will.
        return output_until(argv, "Reconnecting", env=env, cwd=tmp_path, timeout=90)

    run()
    assert not mark.exists()  # untrusted: not run
    entry = listed_hook(codex, hook, env=env, cwd=tmp_path)
    assert (entry["key"], entry["trustStatus"]) == (key, "untrusted")
    out = run("-c", f'hooks.state."{key}".trusted_hash="{entry["currentHash"]}"')
    assert f'hooks.state."{key}"` is ignored' in out and not mark.exists()
    run("--dangerously-bypass-hook-trust")
    assert mark.read_text() == "started\n"


def test_real_opencode_loads_dsh_s_plugin_and_its_turn_reaches_the_pane_s_host(
    dsh_cmd, dsh_env, tmp_path: Path
) -> None:
    """opencode started by dsh gets OPENCODE_CONFIG naming dsh's plugin; the real CLI loads it, and the
    plugin's report of `session.status` (busy) makes the pane working. Without the plugin the same run
    leaves the pane idle (opencode writes no title and rings no bell), so only the plugin can say it.
    Offline the turn then waits on its model's server; online it may end first (`session.idle`: done)."""
    opencode = real_cli("opencode")
    work = tmp_path / "work"
    work.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    env = {**dsh_env, "HOME": str(home), "PATH": f"{opencode.parent}{os.pathsep}{dsh_env['PATH']}"}
    env["OPENCODE_DISABLE_AUTOUPDATE"] = "1"
    env.pop("OPENCODE_CONFIG", None)
    # A first run in a fresh HOME makes opencode's database and looks for its models' list: 25 s at load
    # 5, 42 s at load 8 on two cores; the wait ends as soon as the state comes. Once in a CI run the
    # first opencode exited with status 1 before its turn (not seen again by hand); a second run, with
    # the HOME it made, is then asked the same: only the plugin can make either working.
    seen: list[str] = []
    for _attempt in range(2):
        made = json.loads(dsh(dsh_cmd, "new", "-d", "--json", "--", "opencode", "run", "say hi", env=env, cwd=work))
        session_id = made["session"]
        try:
            deadline = time.monotonic() + 180
            rows: list[dict] = []
            while time.monotonic() < deadline:
                rows = [
                    r
                    for r in json.loads(dsh(dsh_cmd, "agents", "--json", env=env, cwd=work))
                    if r["session"] == session_id
                ]
                if any(r["state"] in ("working", "done", "exited") for r in rows):
                    break
                time.sleep(0.2)
            assert [r["kind"] for r in rows] == ["opencode"], rows
            if rows[0]["state"] in ("working", "done"):
                return
            shown = subprocess.run(
                [*dsh_cmd, "capture", "-t", f"{session_id}:{rows[0]['pane']}"], env=env, capture_output=True, text=True
            )
            seen.append(f"{rows[0]['state']}: {shown.stdout.strip()[-600:]}")
        finally:
            subprocess.run([*dsh_cmd, "stop", session_id], env=env, capture_output=True, timeout=30)
    raise AssertionError(f"opencode never reported working through dsh's plugin: {seen}")
