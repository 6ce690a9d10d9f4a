"""End to end: /resume moves the process to another workspace; a killed dsh comes back with its layout."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import Launch
from tests.e2e.hooks_argv import without_hooks
from tests.e2e.hosts import host_pid, kill_host, wait_pane_cwd_saved, wait_saved
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow

FAKES = Path(__file__).resolve().parent.parent / "fakes" / "bin"


@pytest.fixture
def agent_env(dsh_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    env = dict(dsh_env)
    env["PATH"] = f"{FAKES}{os.pathsep}{env.get('PATH', '')}"
    env["HOME"] = str(tmp_path / "home")
    env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "claude-config")
    env["CODEX_HOME"] = str(tmp_path / "codex-home")
    env["FAKE_AGENT_LOG"] = str(tmp_path / "agent-invocations.jsonl")
    (tmp_path / "home").mkdir()
    return env


@pytest.fixture
def run(launch: Launch) -> Launch:
    def start(*args: str, cwd: Path, env: dict[str, str], rows: int = 32, cols: int = 110) -> PtyDriver:
        return launch(*args, cwd=cwd, env=env, rows=rows, cols=cols)

    return start


def only_session_id(home: Path) -> str:
    logs = sorted((home / "sessions").glob("*/*.jsonl"))
    assert len(logs) == 1, logs
    return logs[0].stem


def invocations(env: dict[str, str]) -> list[dict]:
    """The fake agents' runs in a pane, in order (dsh's own `claude agents --json`, which lists Claude
    sessions outside dsh, is not one)."""
    path = Path(env["FAKE_AGENT_LOG"])
    if not path.exists():
        return []
    runs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [run for run in runs if run["argv"][1:3] != ["agents", "--json"]]


def test_resume_moves_the_process_to_another_workspace(run, dsh_env, dsh_home: Path, tmp_path: Path) -> None:
    bravo = tmp_path / "bravo-service"
    alpha = tmp_path / "alpha-app"
    bravo.mkdir()
    alpha.mkdir()
    b = run(cwd=bravo, env=dsh_env)
    b.wait_for("PROMPT")
    b.type_line("echo b-history-marker")
    b.wait_for("b-history-marker")
    b.type_line("/quit")
    b.wait_exit()

    a = run(cwd=alpha, env=dsh_env)
    a.wait_for("PROMPT")
    a.type_line("/resume")
    screen = a.wait_for("This workspace")
    assert "Tab: all workspaces" in screen
    a.send("\t")
    a.wait_for("All workspaces")
    a.send("bravo")
    a.wait_for("bravo-service")
    a.send("\r")
    a.wait_for("b-history-marker", timeout=20)
    a.wait_for("moved to")
    assert os.readlink(f"/proc/{a.pid}/cwd") == str(bravo)
    a.type_line("pwd")
    a.wait_for(str(bravo))


def test_resume_into_a_vanished_directory_keeps_the_app(run, dsh_env, dsh_home: Path, tmp_path: Path) -> None:
    gone = tmp_path / "gone-soon"
    here = tmp_path / "here"
    gone.mkdir()
    here.mkdir()
    g = run(cwd=gone, env=dsh_env)
    g.wait_for("PROMPT")
    g.type_line("echo worked-here")
    g.wait_for("worked-here\n")
    g.type_line("/quit")
    g.wait_exit()
    gone.rmdir()

    h = run(cwd=here, env=dsh_env)
    h.wait_for("PROMPT")
    h.type_line("/resume")
    h.wait_for("This workspace")
    h.send("\t")
    h.wait_for("gone-soon")
    h.send("gone\r")
    h.wait_for("cannot enter")
    h.send("\x1b")
    h.wait_for("PROMPT")
    h.type_line("echo still-usable")
    h.wait_for("still-usable")
    assert os.readlink(f"/proc/{h.pid}/cwd") == str(here)


def test_killed_session_restores_layout_tails_and_agent(run, agent_env, dsh_home: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    d = run(cwd=work, env=agent_env)
    d.wait_for("PROMPT")
    d.type_line("echo first-tab-tail")
    d.wait_for("first-tab-tail")
    d.type_line("/agent claude")
    d.wait_for("fake-claude session")
    d.send("a first prompt\r")  # the keyboard is in the agent's pane: its conversation begins
    d.wait_for("claude> a first prompt")
    d.send("\x1d")  # back to the prompt
    d.wait_for("PROMPT")
    d.type_line("/new")
    d.wait_until(lambda s: "1:" in s, what="second tab")
    d.type_line("/split -h")
    d.type_line("echo second-tab-tail")
    d.wait_for("second-tab-tail")
    wait_saved(dsh_home, b"second-tab-tail", b"first-tab-tail", b'"kind": "claude"')
    session_id = only_session_id(dsh_home)
    claude_runs = invocations(agent_env)
    assert claude_runs and "--session-id" in claude_runs[0]["argv"]
    claude_session = claude_runs[0]["argv"][claude_runs[0]["argv"].index("--session-id") + 1]
    kill_host(dsh_home)
    d.wait_exit()

    r = run(f"--resume={session_id}", cwd=tmp_path, env=agent_env)
    screen = r.wait_for("second-tab-tail")
    assert "RESTORED" in screen
    assert "0:" in screen and "1:" in screen  # both tabs are back
    r.type_line("/tab select 0")
    screen = r.wait_for("RESUMABLE")
    assert "first-tab-tail" in screen
    assert "Enter: resume claude" in screen
    # The agent pane was the last one opened in tab 0, so it is its active pane: one key resumes it.
    r.send("\r")
    r.wait_for(f"fake-claude resumed {claude_session[:8]}")
    resumed = invocations(agent_env)[-1]
    # The program that ran (by its absolute path), in the directory it worked in.
    assert without_hooks(resumed["argv"]) == [str(FAKES / "claude"), "--resume", claude_session]
    assert "--settings" in resumed["argv"]  # resumed with dsh's hooks, as it was started
    assert resumed["cwd"] == str(work)
    assert os.readlink(f"/proc/{host_pid(dsh_home)}/cwd") == str(work)


def test_auto_resume_starts_agents_in_opted_in_workspaces(run, agent_env, dsh_home: Path, tmp_path: Path) -> None:
    work = tmp_path / "auto"
    work.mkdir()
    (dsh_home / "config.toml").write_text(f'[workspace."{work}"]\nauto_resume = true\n')
    d = run(cwd=work, env=agent_env)
    d.wait_for("PROMPT")
    d.type_line("/agent claude")
    d.wait_for("fake-claude session")
    d.send("a first prompt\r")
    d.wait_for("claude> a first prompt")
    wait_saved(dsh_home, b'"conversation": true', b"a first prompt")  # its conversation seen, the tail saved
    session_id = only_session_id(dsh_home)
    kill_host(dsh_home)
    d.wait_exit()
    claude_session = invocations(agent_env)[0]["argv"][-1]

    r = run(f"--resume={session_id}", cwd=work, env=agent_env)
    r.wait_for(f"fake-claude resumed {claude_session[:8]}")


def test_missing_agent_binary_keeps_the_tombstone(run, agent_env, dsh_home: Path, tmp_path: Path) -> None:
    work, bin_dir = tmp_path / "w", tmp_path / "own-bin"
    work.mkdir()
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(FAKES / "claude")
    env = dict(agent_env)
    env["PATH"] = os.pathsep.join([str(bin_dir), *(p for p in agent_env["PATH"].split(os.pathsep) if p != str(FAKES))])
    d = run(cwd=work, env=env)
    d.wait_for("PROMPT")
    d.type_line("/agent claude")
    d.wait_for("fake-claude session")
    d.send("a first prompt\r")
    d.wait_for("claude> a first prompt")
    wait_saved(dsh_home, b'"conversation": true', b"a first prompt")  # its conversation seen, the tail saved
    session_id = only_session_id(dsh_home)
    kill_host(dsh_home)
    d.wait_exit()

    (bin_dir / "claude").unlink()  # the program that ran is gone, and no other claude is on PATH
    r = run(f"--resume={session_id}", cwd=work, env=env)
    r.wait_for("RESUMABLE")
    r.send("\r")
    r.wait_for("claude")
    r.wait_until(lambda s: "RESUMABLE" in s and "fake-claude session" in s, what="tombstone and tail kept")


def test_an_agent_never_prompted_restores_as_a_fresh_start(run, agent_env, dsh_home: Path, tmp_path: Path) -> None:
    work = tmp_path / "unprompted"
    work.mkdir()
    d = run(cwd=work, env=agent_env)
    d.wait_for("PROMPT")
    d.type_line("/agent claude")
    d.wait_for("fake-claude session")
    wait_saved(dsh_home, b'"kind": "claude"', b'"session_id": "')
    session_id = only_session_id(dsh_home)
    kill_host(dsh_home)
    d.wait_exit()
    injected = invocations(agent_env)[0]["argv"][-1]

    r = run(f"--resume={session_id}", cwd=work, env=agent_env, cols=140)
    screen = r.wait_for("Enter: start claude afresh")
    assert "RESUMABLE" not in screen
    r.send("\r")
    r.wait_for("no conversation to resume")
    r.wait_until(lambda s: len(invocations(agent_env)) == 2, what="claude started again")
    started = invocations(agent_env)[-1]
    assert "--resume" not in started["argv"] and injected not in started["argv"]
    assert started["argv"][0] == str(FAKES / "claude") and started["cwd"] == str(work)


def test_dsh_sessions_json_lists_pane_states(run, dsh_cmd, agent_env, dsh_home: Path, tmp_path: Path) -> None:
    work = tmp_path / "states"
    work.mkdir()
    d = run(cwd=work, env=agent_env)
    d.wait_for("PROMPT")
    d.type_line("/agent claude")
    d.wait_for("fake-claude session")
    d.send("a first prompt\r")
    d.wait_for("claude> a first prompt")
    wait_saved(dsh_home, b'"conversation": true', b"a first prompt")  # its conversation seen, the tail saved
    kill_host(dsh_home)
    d.wait_exit()
    out = subprocess.run(
        [*dsh_cmd, "sessions", "--json"], cwd=work, env=agent_env, capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    states = sorted(p["state"] for p in rows[0]["panes"])
    assert states == ["RESTORED", "RESUMABLE"]
    claude_session = next(r for r in invocations(agent_env) if r["agent"] == "claude")["argv"][-1]
    agents = sorted((p["agent"] or {}).get("session_id") or "" for p in rows[0]["panes"])
    assert agents == ["", claude_session]
    assert {(p["agent"] or {}).get("kind") for p in rows[0]["panes"]} == {None, "claude"}

    # Resumed and live, the panes not started yet still say so; the one started says LIVE.
    r = run(f"--resume={rows[0]['id']}", cwd=work, env=agent_env)
    r.wait_for("RESUMABLE")
    r.type_line("/focus left")
    r.wait_for("▶ p1")
    r.type_line("")  # Enter on the shell tombstone starts a fresh shell
    r.wait_until(lambda s: s.count("LIVE") >= 1 and "RESUMABLE" in s, what="one pane started")
    time.sleep(0.5)
    out = subprocess.run(
        [*dsh_cmd, "sessions", "--json"], cwd=work, env=agent_env, capture_output=True, text=True, timeout=30
    )
    live = json.loads(out.stdout)[0]
    assert live["live_pid"] == host_pid(dsh_home) and live["state"] == "attached"
    assert sorted(p["state"] for p in live["panes"]) == ["LIVE", "RESUMABLE"]


def test_secrets_in_the_environment_never_reach_disk(run, dsh_env, dsh_home: Path, tmp_path: Path) -> None:
    env = dict(dsh_env)
    secrets = {
        "AWS_SECRET_ACCESS_KEY": "aws-very-secret-value",
        "GITHUB_TOKEN": "ghp-very-secret-value",
        "ANTHROPIC_API_KEY": "sk-ant-very-secret-value",
    }
    env.update(secrets)
    d = run(cwd=tmp_path, env=env)
    d.wait_for("PROMPT")
    d.type_line("echo visible-output")
    d.wait_for("visible-output")
    kill_host(dsh_home, signal.SIGTERM)
    d.wait_exit()
    stored = b"".join(p.read_bytes() for p in dsh_home.rglob("*") if p.is_file())
    assert b"visible-output" in stored
    for name, value in secrets.items():
        assert name.encode() not in stored and value.encode() not in stored


def test_corrupt_snapshot_is_backed_up_and_reported(run, dsh_env, dsh_home: Path, tmp_path: Path) -> None:
    d = run(cwd=tmp_path, env=dsh_env)
    d.wait_for("PROMPT")
    d.type_line("/quit")
    d.wait_exit()
    session_id = only_session_id(dsh_home)
    snapshot = dsh_home / "state" / session_id / "snapshot.json"
    snapshot.write_text('{"version": 1, "tabs": [')
    # With no good copy before it (tests/e2e/test_hostile_faults.py restores from one).
    snapshot.with_name("snapshot.json.prev").unlink(missing_ok=True)
    r = run(f"--resume={session_id}", cwd=tmp_path, env=dsh_env)
    screen = r.wait_for("corrupt")
    assert "PROMPT" in screen and "LIVE" in screen  # started empty, with a fresh shell
    backups = list(snapshot.parent.glob("snapshot.json.corrupt-*"))
    assert len(backups) == 1 and backups[0].read_text() == '{"version": 1, "tabs": ['


def test_snapshot_from_a_newer_dsh_is_refused(run, dsh_env, dsh_home: Path, tmp_path: Path) -> None:
    d = run(cwd=tmp_path, env=dsh_env)
    d.wait_for("PROMPT")
    d.type_line("/quit")
    d.wait_exit()
    session_id = only_session_id(dsh_home)
    snapshot = dsh_home / "state" / session_id / "snapshot.json"
    data = json.loads(snapshot.read_text())
    data["version"] = 99
    snapshot.write_text(json.dumps(data))
    r = run(f"--resume={session_id}", cwd=tmp_path, env=dsh_env, cols=220)
    assert r.wait_exit() == 1
    screen = r.text()
    assert "version 99 is newer than this dsh understands (version 1)" in screen
    assert json.loads(snapshot.read_text())["version"] == 99  # untouched


def test_an_agent_typed_in_a_shell_comes_back_resumable(run, agent_env, dsh_home: Path, tmp_path: Path) -> None:
    work = tmp_path / "typed"
    work.mkdir()
    d = run(cwd=work, env=agent_env)
    d.wait_for("PROMPT")
    d.type_line(f"/{FAKES / 'claude'}")  # //path sends /path: as a user types `claude` in a shell
    d.wait_for("fake-claude session")
    d.type_line("hello from the prompt")
    d.wait_for("claude> hello from the prompt")
    wait_saved(dsh_home, b'"kind": "claude"', b'"conversation": true')  # noticed, learned, saved
    session_id = only_session_id(dsh_home)
    claude_session = next(r for r in invocations(agent_env) if r["agent"] == "claude")
    kill_host(dsh_home)
    d.wait_exit()

    r = run(f"--resume={session_id}", cwd=work, env=agent_env)
    r.wait_for("RESUMABLE")
    r.wait_for("Enter: resume claude")
    r.send("\r")
    r.wait_for("fake-claude resumed")
    resumed = invocations(agent_env)[-1]
    assert resumed["argv"][-2] == "--resume" and resumed["cwd"] == str(work)
    assert claude_session["cwd"] == str(work)


def codex_with_a_new_thread(
    run, agent_env, dsh_home: Path, work: Path, before: str, after: str
) -> tuple[PtyDriver, str, str]:
    """dsh in `work` with the fake codex in a pane: a prompt `before` in its first thread, `/new`, a prompt
    `after` in the second, each saved; (the driver, the first thread's id, the second's)."""
    work.mkdir()
    d = run(cwd=work, env=agent_env, cols=140)
    d.wait_for("PROMPT")
    d.type_line("/agent codex")
    first = d.wait_for("fake-codex session", regex=False).split("fake-codex session ")[1].split()[0]
    d.send(f"{before}\r")  # the keyboard is in the agent's pane
    d.wait_for(f"codex> {before}")
    wait_saved(dsh_home, first.encode())
    d.send("/new\r")
    second = d.wait_for("codex: new thread").split("codex: new thread ")[1].split()[0]
    d.send(f"{after}\r")
    d.wait_for(f"codex> {after}")
    wait_saved(dsh_home, f'"session_id": "{second}"'.encode(), timeout=20)
    return d, first, second


def crash_and_resume_codex(
    run, agent_env: dict[str, str], dsh_home: Path, tmp_path: Path, d: PtyDriver, thread: str, work: Path
) -> PtyDriver:
    """Kill the session's host as a crash would, resume the session, and Enter on its Codex pane: the real
    resume command must run for `thread`, in `work`. The resumed session's driver."""
    session_id = only_session_id(dsh_home)
    kill_host(dsh_home)
    d.wait_exit()
    r = run(f"--resume={session_id}", cwd=tmp_path, env=agent_env, cols=140)
    r.wait_for("Enter: resume codex")
    r.send("\r")
    r.wait_for(f"fake-codex resumed {thread}")
    resumed = invocations(agent_env)[-1]
    assert without_hooks(resumed["argv"]) == [str(FAKES / "codex"), "resume", thread]
    assert resumed["cwd"] == str(work)
    return r


def test_a_codex_that_began_a_new_thread_resumes_the_new_one(run, agent_env, dsh_home: Path, tmp_path: Path) -> None:
    """`/new` inside Codex begins another conversation in the same process: the pane follows it, a restore
    resumes it, and the conversation before it is a row of its own in the picker."""
    work = tmp_path / "renewed"
    d, _first, second = codex_with_a_new_thread(
        run, agent_env, dsh_home, work, "the conversation before new", "the conversation after new"
    )
    r = crash_and_resume_codex(run, agent_env, dsh_home, tmp_path, d, second, work)
    r.send("\x1d")  # back to the prompt
    r.wait_for("PROMPT")
    r.type_line("/resume")
    screen = r.wait_for("the conversation before new", timeout=20)
    before = next(line for line in screen.splitlines() if "the conversation before new" in line)
    assert "codex ·" in before  # its own agent row
    # The conversation after /new is this session's (its title), not an agent row of its own.
    after = r.wait_for("the conversation after new", timeout=20)
    rows = [line for line in after.splitlines() if "the conversation after new" in line]
    assert rows and all("codex ·" not in line for line in rows)


def test_a_codex_that_went_back_to_an_older_thread_resumes_that_one(
    run, agent_env, dsh_home: Path, tmp_path: Path
) -> None:
    """`/new`, then back to the first thread inside Codex (its `/resume` picker; the fake takes the id) and a
    prompt there: the pane follows it back, and a restore resumes the first thread, not the one after /new."""
    work = tmp_path / "went-back"
    d, first, _second = codex_with_a_new_thread(
        run, agent_env, dsh_home, work, "the first thread", "the thread after new"
    )
    d.send(f"/resume {first}\r")
    d.wait_for(f"codex: back to thread {first}")
    d.send("back in the first thread\r")
    d.wait_for("codex> back in the first thread")
    wait_saved(dsh_home, f'"session_id": "{first}"'.encode(), timeout=20)
    crash_and_resume_codex(run, agent_env, dsh_home, tmp_path, d, first, work)


def two_agent_panes(run, env: dict[str, str], work: Path, name: str) -> tuple[PtyDriver, str]:
    """dsh in `work` with two panes running the fake `name`, started a second apart; the keyboard is in the
    second. The driver, and the screen once both have started."""
    d = run(cwd=work, env=env, cols=240)
    d.wait_for("PROMPT")
    d.type_line(f"/agent {name}")
    d.wait_for(f"fake-{name} session")
    d.send("\x1d")
    d.wait_for("PROMPT")
    time.sleep(1.0)
    d.type_line(f"/agent {name}")
    return d, d.wait_until(lambda s: s.count(f"fake-{name} session") == 2, what=f"two {name} panes")


def into_the_first_pane(d: PtyDriver) -> None:
    """From the second of two side-by-side panes, the keyboard into the first."""
    time.sleep(2.0)  # a person's prompts in two panes: not within the same moment
    d.send("\x1d")
    d.wait_for("PROMPT")
    d.type_line("/focus left")
    d.wait_for("▶ p2")
    d.type_line("/pane")
    d.wait_for("IN PANE")


def _saved_agent_ids(dsh_home: Path, session_id: str) -> dict[str, str | None]:
    try:
        saved = json.loads((dsh_home / "state" / session_id / "snapshot.json").read_text())
    except (OSError, ValueError):
        return {}
    return {p["id"]: p["agent"]["session_id"] for p in saved["panes"] if p.get("agent")}


def _until_saved(dsh_home: Path, session_id: str, wanted: set[str]) -> dict[str, str | None]:
    deadline = time.monotonic() + 30
    while True:
        ids = _saved_agent_ids(dsh_home, session_id)
        if set(ids.values()) == wanted:
            return ids
        assert time.monotonic() < deadline, f"saved {ids}, wanted {wanted}"
        time.sleep(0.1)


def test_two_codex_panes_that_begin_threads_in_the_same_second_each_follow_their_own(
    run, agent_env, dsh_home: Path, tmp_path: Path
) -> None:
    """`/new` in two Codex panes of one folder, then Enter in each 0.6 s apart: both new rollouts are
    written within a second of both Enters, and each pane follows the one its own Enter began."""
    work = tmp_path / "same-second"
    work.mkdir()
    d, screen = two_agent_panes(run, agent_env, work, "codex")
    left, right = (part.split()[0] for part in screen.split("fake-codex session ")[1:3])
    d.send("the right pane first\r")  # the keyboard is in the second pane, on the right
    d.wait_for("codex> the right pane first")
    into_the_first_pane(d)
    d.send("then the left pane\r")
    d.wait_for("codex> then the left pane")
    session_id = only_session_id(dsh_home)
    before = _until_saved(dsh_home, session_id, {left, right})
    d.send("/new\r")
    left_new = d.wait_for("codex: new thread").split("codex: new thread ")[1].split()[0]
    d.send("\x1b[1;3C")  # Alt+Right, no prefix: into the right pane
    time.sleep(0.5)
    d.send("/new\r")
    screen = d.wait_until(lambda s: s.count("codex: new thread") == 2, what="a new thread in each pane")
    right_new = next(part.split()[0] for part in screen.split("codex: new thread ")[1:] if part.split()[0] != left_new)
    time.sleep(2.0)
    d.send("right after new\r")
    d.send("\x1b[1;3D")  # Alt+Left
    time.sleep(0.6)  # for the focus to move; the Enters are still well within PROMPT_BEFORE of both rollouts
    d.send("left after new\r")
    screen = d.wait_until(lambda s: "codex> right after new" in s and "codex> left after new" in s, what="both")
    # Each line went to its own pane: the left one's echo left of the right one's.
    rows = screen.splitlines()
    columns = [
        next(r for r in rows if f"codex> {w} after new" in r).index(f"codex> {w} after new") for w in ("left", "right")
    ]
    assert columns[0] + 20 < columns[1], columns
    after = _until_saved(dsh_home, session_id, {left_new, right_new})
    kill_host(dsh_home)
    d.wait_exit()
    began = {pane: left_new if old == left else right_new for pane, old in before.items()}
    assert after == began
    for pane, thread in after.items():
        rollout = next((tmp_path / "codex-home" / "sessions").glob(f"*/*/*/rollout-*-{thread}.jsonl"))
        typed = "left after new" if began[pane] == left_new else "right after new"
        assert typed in rollout.read_text()


def test_two_opencode_panes_in_one_folder_and_a_new_session_in_one(run, agent_env, dsh_home, tmp_path) -> None:
    """opencode ties no file to its process and creates a session at its first prompt: each pane holds the
    session its own prompt began (whichever pane looks first), and `/new` then a prompt moves that pane on."""
    work = tmp_path / "oc"
    work.mkdir()
    d, screen = two_agent_panes(run, agent_env, work, "opencode")
    first, second = (part.split()[0] for part in screen.split("fake-opencode session ")[1:3])
    d.send("the second pane asks first\r")  # the keyboard is in the second pane
    d.wait_for("opencode> the second pane asks first")
    into_the_first_pane(d)
    d.send("then the first pane\r")
    d.wait_for("opencode> then the first pane")
    wait_saved(dsh_home, *(f'"session_id": "{sid}"'.encode() for sid in (first, second)), timeout=30)
    d.send("/new\r")
    newer = d.wait_for("opencode: new session").split("opencode: new session ")[1].split()[0]
    d.send("a new session in the first pane\r")
    d.wait_for("opencode> a new session in the first pane")
    wait_saved(dsh_home, *(f'"session_id": "{sid}"'.encode() for sid in (newer, second)), timeout=20)
    session_id = only_session_id(dsh_home)
    saved = json.loads((dsh_home / "state" / session_id / "snapshot.json").read_text())
    held = sorted(p["agent"]["session_id"] for p in saved["panes"] if p.get("agent"))
    assert held == sorted([newer, second])
    kill_host(dsh_home)
    d.wait_exit()

    r = run(f"--resume={session_id}", cwd=tmp_path, env=agent_env, cols=240)
    r.wait_for("Enter: resume opencode")
    r.send("\r")  # the active pane: the first, where /new ran
    r.wait_for(f"fake-opencode resumed {newer}")
    resumed = invocations(agent_env)[-1]
    assert without_hooks(resumed["argv"]) == [str(FAKES / "opencode"), "--session", newer]
    assert resumed["cwd"] == str(work)


def test_a_restored_shell_starts_where_the_shell_was(run, dsh_env, dsh_home: Path, tmp_path: Path) -> None:
    start, moved = tmp_path / "start", tmp_path / "moved-here"
    start.mkdir()
    moved.mkdir()
    d = run(cwd=start, env=dsh_env)
    d.wait_for("PROMPT")
    d.type_line(f"cd {moved} && echo now-in-$((40+2))")
    d.wait_for("now-in-42")
    # The pane's record itself, in snapshot.json: the scrollback tails are files of their own, written
    # first, and they hold the typed path and the output as soon as the cd ran.
    wait_pane_cwd_saved(dsh_home, str(moved))
    session_id = only_session_id(dsh_home)
    kill_host(dsh_home)
    d.wait_exit()

    r = run(f"--resume={session_id}", cwd=start, env=dsh_env)
    r.wait_for("RESTORED")
    r.send("\r")
    r.wait_for("LIVE")
    r.type_line("pwd")
    r.wait_for(f"\n{moved}")


def test_a_line_typed_at_a_restored_pane_starts_it_and_runs(run, dsh_env, dsh_home: Path, tmp_path: Path) -> None:
    d = run(cwd=tmp_path, env=dsh_env)
    d.wait_for("PROMPT")
    d.type_line("/quit")
    d.wait_exit()
    r = run(f"--resume={only_session_id(dsh_home)}", cwd=tmp_path, env=dsh_env)
    r.wait_for("RESTORED")
    r.type_line("echo typed-$((6*7))")
    r.wait_for("typed-42")
    assert "PROMPT" in r.text()  # the keyboard stays on the prompt the line came from


def test_a_typed_agent_resumes_with_its_own_store_and_program(run, agent_env, dsh_home: Path, tmp_path: Path) -> None:
    """`export CLAUDE_CONFIG_DIR=…` and a `claude` found first on the shell's own PATH: a restore resumes that
    program, with that store, in the directory the agent worked in (not where the pane started)."""
    work, own_bin, exported = tmp_path / "typed", tmp_path / "own-bin", tmp_path / "exp"
    sub = work / "sub"
    sub.mkdir(parents=True)
    own_bin.mkdir()
    (own_bin / "claude").symlink_to(FAKES / "claude")
    d = run(cwd=work, env=agent_env)
    d.wait_for("PROMPT")
    d.type_line(f"export CLAUDE_CONFIG_DIR={exported} PATH={own_bin}:$PATH; cd sub")
    d.type_line("claude")
    d.wait_for("fake-claude session")
    d.type_line("hello from the prompt")
    d.wait_for("claude> hello from the prompt")
    assert list((exported / "projects").glob("*/*.jsonl"))  # the agent's store is the exported one
    wait_saved(dsh_home, b'"kind": "claude"', b'"conversation": true')  # noticed, learned, saved
    session_id = only_session_id(dsh_home)
    kill_host(dsh_home)
    d.wait_exit()

    r = run(f"--resume={session_id}", cwd=work, env=agent_env)
    r.wait_for("Enter: resume claude")
    r.send("\r")
    r.wait_for("fake-claude resumed")
    resumed = invocations(agent_env)[-1]
    assert resumed["argv"][0] == str(own_bin / "claude") and without_hooks(resumed["argv"])[1] == "--resume"
    assert resumed["cwd"] == str(sub)


def test_a_replayed_tail_sends_no_focus_reports_to_the_next_program(run, dsh_env, dsh_home: Path, tmp_path) -> None:
    d = run(cwd=tmp_path, env=dsh_env)
    d.wait_for("PROMPT")
    d.type_line("printf '\\033[?1004hfocus-mode-on\\n'")
    d.wait_for("focus-mode-on\n")
    wait_saved(dsh_home, b"focus-mode-on")
    session_id = only_session_id(dsh_home)
    kill_host(dsh_home)
    d.wait_exit()

    r = run(f"--resume={session_id}", cwd=tmp_path, env=dsh_env)
    r.wait_for("RESTORED")
    r.type_line("cat -v")  # starts a fresh shell in the pane and runs cat there
    time.sleep(0.5)
    r.send("\x1d")  # into the pane: a focus-in report would reach cat
    r.wait_for("IN PANE")
    r.send("typed\r")
    r.wait_for("typed\n")
    r.send("\x1d")  # and out again
    r.wait_for("PROMPT")
    assert "^[[I" not in r.text() and "^[[O" not in r.text()


def test_two_codex_panes_in_one_folder_get_their_own_ids(run, agent_env, dsh_home: Path, tmp_path: Path) -> None:
    """Codex ties no file to its process: the store scan must not give both panes the newest session."""
    work = tmp_path / "two"
    work.mkdir()
    d, _ = two_agent_panes(run, agent_env, work, "codex")
    d.send("second first\r")  # the keyboard is in the second pane
    d.wait_for("codex> second first")
    into_the_first_pane(d)  # the second pane's session is in the store before the first pane has one
    d.send("then first\r")
    d.wait_for("codex> then first")
    session_id = only_session_id(dsh_home)
    deadline = time.monotonic() + 20
    while True:  # both panes' sessions learned, and the snapshot written with them
        try:
            saved = json.loads((dsh_home / "state" / session_id / "snapshot.json").read_text())
            ids = {p["agent"]["session_id"] for p in saved["panes"] if p.get("agent")} - {None}
        except (OSError, ValueError):
            ids = set()
        if len(ids) == 2:
            break
        assert time.monotonic() < deadline, f"two codex ids never saved: {ids}"
        time.sleep(0.1)
    runs = [r for r in invocations(agent_env) if r["agent"] == "codex"]
    kill_host(dsh_home)
    d.wait_exit()
    rollouts = sorted((tmp_path / "codex-home" / "sessions").glob("*/*/*/rollout-*.jsonl"))
    ids_by_pid = {}
    for path in rollouts:
        meta = json.loads(path.read_text().splitlines()[0])["payload"]
        ids_by_pid[meta["id"]] = meta["timestamp"]
    snapshot = json.loads((dsh_home / "state" / session_id / "snapshot.json").read_text())
    learned = sorted(str(p["agent"]["session_id"]) for p in snapshot["panes"] if p.get("agent"))
    assert len(runs) == 2 and len(set(learned)) == 2 and set(learned) == set(ids_by_pid)
    # Each pane holds the session its own codex began: the first pane the earlier one.
    panes = {p["id"]: p["agent"]["session_id"] for p in snapshot["panes"] if p.get("agent")}
    first, second = sorted(panes)
    assert ids_by_pid[panes[first]] < ids_by_pid[panes[second]]
