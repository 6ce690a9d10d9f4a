"""End to end: scripts and agents drive sessions with the built dsh's scripting verbs, as with tmux's."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from dsh.client.control import ControlError, call
from tests.e2e.conftest import Launch

pytestmark = pytest.mark.slow


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    work.mkdir()
    return work


@pytest.fixture
def env(dsh_env: dict[str, str]) -> dict[str, str]:
    # The panes' programs call dsh too: the installed one, first on their PATH.
    return {**dsh_env, "PATH": f"{Path(sys.executable).parent}:{dsh_env['PATH']}", "PS1": "$ "}


class Ctl:
    """`dsh VERB …` as a script runs it."""

    def __init__(self, dsh_cmd: list[str], env: dict[str, str], cwd: Path) -> None:
        self.dsh_cmd, self.env, self.cwd = dsh_cmd, env, cwd

    def run(self, *args: str, ok: bool = True, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        out = subprocess.run(
            [*self.dsh_cmd, *args], env=env or self.env, cwd=self.cwd, capture_output=True, text=True, timeout=60
        )
        if ok:
            assert out.returncode == 0, (args, out.returncode, out.stderr)
        return out

    def __call__(self, *args: str) -> str:
        return self.run(*args).stdout

    def sessions(self) -> list[dict[str, Any]]:
        return json.loads(self("list", "--json"))

    def until(self, predicate: Any, what: str, timeout: float = 20.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            time.sleep(0.1)


@pytest.fixture
def ctl(dsh_cmd: list[str], env: dict[str, str], workdir: Path) -> Ctl:
    return Ctl(dsh_cmd, env, workdir)


def panes(session: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["id"]: p for tab in session["tabs"] for p in tab["panes"]}


def test_a_script_builds_a_layout_headless_and_the_attached_client_shows_it(
    ctl: Ctl, launch: Launch, env: dict[str, str], workdir: Path
) -> None:
    sid = ctl("new", "-d", "-x", "100", "-y", "30").strip()
    assert ctl("split", "-t", sid, "-h").strip() == f"{sid}:p2"
    assert ctl("split", "-t", f"{sid}:p2", "-v", "--size", "30%").strip() == f"{sid}:p3"
    assert ctl("new-tab", "-t", sid).strip() == f"{sid}:p4"
    ctl("send", "-t", f"{sid}:p1", "echo hi-from-$((6*7))", "--enter")
    assert ctl("wait", "-t", f"{sid}:p1", "--output", "^hi-from-42$", "--timeout", "20") == "hi-from-42\n"
    assert "hi-from-42\n" in ctl("capture", "-t", f"{sid}:p1")
    ctl("send", "-t", f"{sid}:p4", "--keys", "echo second-$((1+1))", "Enter")
    ctl("wait", "-t", f"{sid}:p4", "--output", "^second-2$", "--timeout", "20")
    (listed,) = ctl.sessions()
    assert listed["id"] == sid and listed["attached"] is False
    assert [[p["id"] for p in t["panes"]] for t in listed["tabs"]] == [["p1", "p2", "p3"], ["p4"]]
    assert [t["active"] for t in listed["tabs"]] == [False, True]
    # Attach it: the client shows the active tab's pane at the size the listing now gives it.
    d = launch("attach", sid, cwd=workdir, env=env, rows=30, cols=100)
    d.wait_for("second-2")
    (shown,) = ctl.until(lambda: [s for s in ctl.sessions() if s["attached"]], "the listing to say attached")
    p4 = panes(shown)["p4"]
    assert (p4["rows"], p4["cols"]) == (30 - 3 - 1, 100) and p4["active"]
    # A verb beside the attached client: it follows, as it would a key.
    ctl("focus", "-t", f"{sid}:p1")
    screen = d.wait_for("hi-from-42")
    assert "second-2" not in screen
    (after,) = ctl.sessions()
    assert [t["active"] for t in after["tabs"]] == [True, False]
    rows = {i: (p["rows"], p["cols"]) for i, p in panes(after).items() if i != "p4"}
    assert rows["p1"][0] == 26 and rows["p2"][1] == rows["p3"][1] and rows["p1"][1] + rows["p2"][1] < 100
    ctl("close", "-t", f"{sid}:p3")
    assert "p3" not in panes(ctl.sessions()[0])


def test_a_fake_agent_spawns_a_helper_pane_waits_for_its_status_and_reads_it(
    ctl: Ctl, workdir: Path, dsh_home: Path
) -> None:
    (workdir / "agent.sh").write_text(
        "pane=$(dsh split -- sh -c 'echo helper-says-$((40+2)); exit 7')\n"
        'dsh wait -t "$pane" --exit --timeout 30 > status.txt; echo "rc=$?" >> status.txt\n'
        'dsh capture -t "$pane" > out.txt\n'
        'echo "$DSH_SESSION_ID $DSH_PANE_ID $DSH_SOCKET $pane" > env.txt\n'
        "dsh report --state done --message 'helper finished'\n"
        "exec sleep 600\n"
    )
    sid = ctl("new", "-d", "--name", "agent work", "--", "sh", "agent.sh").strip()
    ctl.until(lambda: (workdir / "env.txt").exists(), "the agent to finish")
    assert (workdir / "status.txt").read_text() == "7\nrc=7\n"
    assert "helper-says-42" in (workdir / "out.txt").read_text()
    session, pane, socket, helper = (workdir / "env.txt").read_text().split()
    assert (session, pane, helper) == (sid, "p1", f"{sid}:p2")
    assert Path(socket).is_socket() and str(dsh_home) in socket
    (listed,) = ctl.until(lambda: [s for s in ctl.sessions() if panes(s)["p1"]["agent_state"]], "the report")
    assert listed["title"] == "agent work"
    state = panes(listed)["p1"]["agent_state"]
    assert state["state"] == "done" and state["message"] == "helper finished"
    # Addressed by a unique start of its random part, and by its title's slug.
    assert ctl("capture", "-t", f"{sid.split('-')[1][:4]}:p2").count("helper-says-42") == 1
    assert "helper-says-42" in ctl("capture", "-t", "agent-work:p2")


def test_send_keys_c_c_interrupts_a_sleep_and_a_runaway_regex_is_cut_off(ctl: Ctl) -> None:
    sid = ctl("new", "-d").strip()
    ctl("send", "-t", sid, "sleep 300", "--enter")

    def sleeping() -> bool:
        fg = panes(ctl.sessions()[0])["p1"]["foreground"]
        return bool(fg and fg["argv"][:1] == ["sleep"])

    ctl.until(sleeping, "sleep to run in the foreground")
    ctl("send", "-t", sid, "--keys", "C-c")
    ctl.until(lambda: not sleeping(), "the sleep to end")
    ctl("send", "-t", sid, "--keys", "echo after-$((1+1))", "Enter")
    ctl("wait", "-t", sid, "--output", "^after-2$", "--timeout", "20")
    # A pattern that backtracks for ever runs in the client and is cut off there.
    ctl("send", "-t", sid, "--keys", "printf 'a%.0s' $(seq 40); echo b", "Enter")
    ctl("wait", "-t", sid, "--output", "^a{40}b$", "--timeout", "20")
    start = time.monotonic()
    slow = ctl.run("wait", "-t", sid, "--output", "^(a+)+$", "--timeout", "30", ok=False)
    assert slow.returncode == 3 and "took more than 1 s" in slow.stderr
    assert time.monotonic() - start < 20  # the cut-off, not the 30 s timeout, ended it
    timed = ctl.run("wait", "-t", sid, "--output", "never-printed", "--timeout", "0.5", ok=False)
    assert timed.returncode == 124


def test_bad_targets_and_hooks_with_no_host(ctl: Ctl, env: dict[str, str]) -> None:
    for verb in (("report", "--state", "working"), ("notify", "hello")):
        # Inside a pane whose host is gone, and outside any pane: nothing said, status 0.
        gone = {**env, "DSH_SOCKET": "/nonexistent/dsh/x.sock", "DSH_SESSION_ID": "x", "DSH_PANE_ID": "p1"}
        out = ctl.run(*verb, env=gone)
        assert (out.returncode, out.stdout, out.stderr) == (0, "", "")
        out = ctl.run(*verb)
        assert (out.returncode, out.stdout, out.stderr) == (0, "", "")
    none = ctl.run("send", "hi", ok=False)
    assert none.returncode == 2 and "no live dsh session in this workspace" in none.stderr
    sid = ctl("new", "-d").strip()
    other = ctl("new", "-d").strip()
    for target in ("nosuch", f"{sid}:p9", f"{sid}:nosuch"):
        out = ctl.run("send", "-t", target, "x", ok=False)
        assert out.returncode == 2 and out.stderr.startswith("dsh: ") and out.stderr.count("\n") == 1, out.stderr
    ambiguous = ctl.run("send", "-t", "20", "x", ok=False)
    assert ambiguous.returncode == 2 and sid in ambiguous.stderr and other in ambiguous.stderr
    usage = ctl.run("send", "-t", sid, "--bogus", ok=False)
    assert usage.returncode == 1 and "unknown option --bogus" in usage.stderr


def test_two_hundred_calls_beside_an_attached_client_and_a_flood(
    ctl: Ctl, launch: Launch, env: dict[str, str], workdir: Path, dsh_home: Path
) -> None:
    d = launch(cwd=workdir, env=env, rows=30, cols=100)
    d.wait_for("PROMPT")
    (session,) = ctl.sessions()
    sid, sock = session["id"], session["socket"]
    ctl("split", "-t", sid, "-h", "--", "sh", "-c", "yes flood-line")
    results: list[Any] = []

    def one(i: int) -> None:
        request: dict[str, Any] = [
            {"verb": "list"},
            {"verb": "capture", "pane": "p2"},
            {"verb": "send", "pane": "p1", "text": ""},
            {"verb": "report", "pane": "p1", "state": "working", "message": f"call {i}"},
            {"verb": "capture", "pane": "p2", "lines": 500, "join": True},
        ][i % 5]
        try:
            results.append(call(sock, request, timeout=60.0)["ok"])
        except ControlError as exc:
            results.append(f"{exc.status}: {exc}")

    threads = [threading.Thread(target=one, args=(i,)) for i in range(200)]
    for thread in threads:
        thread.start()
    d.send("\x1d")  # C-] out of the flooding pane's keyboard, should it have it
    for thread in threads:
        thread.join(90)
    assert len(results) == 200 and all(r is True for r in results), [r for r in results if r is not True][:3]
    # The attached client was served throughout and still is.
    ctl("send", "-t", f"{sid}:p1", "echo still-$((2*21))", "--enter")
    ctl("wait", "-t", f"{sid}:p1", "--output", "^still-42$", "--timeout", "30")
    ctl("close", "-t", f"{sid}:p2")
    d.wait_for("still-42", timeout=30)
    # Nothing lost from the session log: every line whole, the split and the close in it.
    (log,) = (dsh_home / "sessions").glob(f"*/{sid}.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    kinds = [(e.get("type"), e.get("pane_id")) for e in events]
    assert ("pane_opened", "p2") in kinds and ("pane_closed", "p2") in kinds


def test_a_verb_s_usage_comes_on_a_line_of_its_own(dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path) -> None:
    done = subprocess.run([*dsh_cmd, "new", "-d", "-o", "x"], env=dsh_env, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "dsh: dsh new: unknown option -o",
        "usage: dsh new -d [-c DIR] [--name NAME] [-x COLS -y ROWS] [-- CMD...]",
    ], done.stderr
