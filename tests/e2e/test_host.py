"""End to end: a session's host outlives its client — detach, attach, take over, crash, stop."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from dsh.protocol import PROTOCOL_VERSION
from tests.e2e.conftest import Launch
from tests.e2e.hosts import alive, host_pid, kill_host, running, wait_saved
from tests.e2e.ptydriver import PtyDriver

pytestmark = pytest.mark.slow

COUNTER = "i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.2; done"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    work.mkdir()
    return work


@pytest.fixture
def run(launch: Launch, dsh_env: dict[str, str], workdir: Path) -> Launch:
    def start(
        *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, rows: int = 30, cols: int = 100
    ) -> PtyDriver:
        return launch(*args, cwd=cwd or workdir, env=env or dsh_env, rows=rows, cols=cols)

    return start


def sessions(dsh_cmd: list[str], env: dict[str, str], cwd: Path, *extra: str) -> list[dict]:
    out = subprocess.run(
        [*dsh_cmd, "sessions", "--json", *extra], cwd=cwd, env=env, capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def last_tick(screen: str) -> int:
    ticks = [int(n) for n in re.findall(r"tick-(\d+)", screen)]
    assert ticks, screen
    return max(ticks)


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    if int(handle.read().rsplit(b")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return found


def test_detach_leaves_the_program_running_and_attach_shows_it_later(run, dsh_home: Path, workdir: Path) -> None:
    d = run()
    d.wait_for("PROMPT")
    d.type_line(COUNTER)
    d.wait_for("tick-3")
    d.send("\x02d")  # C-b d
    assert d.wait_exit() == 0
    (sid,) = [p.stem for p in (dsh_home / "sessions").glob("*/*.jsonl")]
    # Titled by the first line typed, as dsh sessions titles it.
    assert f"detached from {COUNTER} ({sid}) — dsh attach {sid}" in d.flowed()
    host = host_pid(dsh_home)
    assert alive(host) and children_of(host), "the host and its shell run on"
    seen = last_tick(d.text()) if re.search(r"tick-\d", d.text()) else 0  # the title holds `tick-$i`
    time.sleep(1.0)

    a = run("attach")
    screen = a.wait_for("PROMPT")
    later = a.wait_until(lambda s: "tick-" in s and last_tick(s) > seen + 3, what="a later counter value")
    assert last_tick(later) > seen + 3
    assert "IN PANE" not in screen


def test_a_killed_or_hung_up_client_leaves_the_session_running(
    run, dsh_cmd, dsh_env, dsh_home: Path, workdir: Path
) -> None:
    d = run()
    d.wait_for("PROMPT")
    d.type_line(COUNTER)
    d.wait_for("tick-2")
    host = host_pid(dsh_home)
    os.kill(d.pid, signal.SIGKILL)
    d.wait_exit()
    time.sleep(0.3)
    assert alive(host)
    (row,) = sessions(dsh_cmd, dsh_env, workdir)
    assert row["state"] == "detached" and row["live_pid"] == host

    a = run("attach")
    a.wait_for("tick-")
    os.kill(a.pid, signal.SIGHUP)  # the terminal window closed, or an ssh drop
    a.wait_exit()
    time.sleep(0.3)
    assert alive(host)
    b = run("attach")
    first = last_tick(b.wait_for("tick-"))
    b.wait_until(lambda s: last_tick(s) > first, what="the counter still counting")


def test_resume_to_another_project_leaves_running_work_running(
    run, dsh_cmd, dsh_env, dsh_home: Path, tmp_path: Path
) -> None:
    alpha, bravo = tmp_path / "alpha-app", tmp_path / "bravo-service"
    alpha.mkdir()
    bravo.mkdir()
    b = run(cwd=bravo)
    b.wait_for("PROMPT")
    b.type_line("echo bravo-was-here")
    b.wait_for("bravo-was-here")
    b.type_line("/quit")
    assert b.wait_exit() == 0

    a = run(cwd=alpha)
    a.wait_for("PROMPT")
    a.type_line("sleep 1000")
    time.sleep(0.5)
    a.type_line("/resume")
    a.wait_for("This workspace")
    a.send("\t")
    a.wait_for("All workspaces")
    a.send("bravo")
    a.wait_for("bravo-service")
    a.send("\r")
    a.wait_for("bravo-was-here", timeout=20)
    a.wait_for("moved to")
    rows = {Path(r["cwd"]).name: r for r in sessions(dsh_cmd, dsh_env, alpha, "--all")}
    assert rows["alpha-app"]["state"] == "detached"
    assert rows["bravo-service"]["state"] == "attached"
    assert running(dsh_home, "sleep 1000"), "the sleep in the session left behind is still running"
    assert os.readlink(f"/proc/{host_pid(dsh_home, rows['bravo-service']['id'])}/cwd") == str(bravo)

    a.type_line("/resume")
    a.wait_for("This workspace")
    a.send("\t")
    a.wait_for("All workspaces")
    a.send("alpha")
    a.wait_for("● detached")
    a.send("\r")
    a.wait_for("sleep 1000", timeout=20)
    a.wait_for("alpha-app")
    rows = {Path(r["cwd"]).name: r for r in sessions(dsh_cmd, dsh_env, alpha, "--all")}
    assert rows["alpha-app"]["state"] == "attached"
    # bravo had nothing running but its idle shell: leaving it closed it, as /quit would.
    deadline = time.monotonic() + 10
    while rows["bravo-service"]["state"] != "closed" and time.monotonic() < deadline:
        time.sleep(0.1)
        rows = {Path(r["cwd"]).name: r for r in sessions(dsh_cmd, dsh_env, alpha, "--all")}
    bravo_log = Path(rows["bravo-service"]["path"]).read_text()
    assert rows["bravo-service"]["state"] == "closed", bravo_log


def test_a_crashed_host_is_listed_crashed_and_restores(run, dsh_cmd, dsh_env, dsh_home: Path, workdir: Path) -> None:
    d = run()
    d.wait_for("PROMPT")
    d.type_line("echo before-the-crash")
    d.wait_for("before-the-crash")
    wait_saved(dsh_home, b"before-the-crash")
    kill_host(dsh_home, signal.SIGKILL)
    assert d.wait_exit() == 1
    assert "ended unexpectedly" in d.text()
    (row,) = sessions(dsh_cmd, dsh_env, workdir)
    assert row["state"] == "crashed" and row["live_pid"] is None
    r = run(f"--resume={row['id']}")
    screen = r.wait_for("RESTORED")
    assert "before-the-crash" in screen and "resumed session" in screen


def test_clients_share_a_session_a_watcher_cannot_type_and_d_takes_it_over(run, dsh_home: Path) -> None:
    first = run()
    first.wait_for("PROMPT", timeout=20)
    first.type_line("echo shared-screen")
    first.wait_for("shared-screen", timeout=20)
    (sid,) = [p.stem for p in (dsh_home / "sessions").glob("*/*.jsonl")]
    second = run("attach", sid, rows=24, cols=90)
    second.wait_for("shared-screen", timeout=20)
    second.type_line("echo from-$((20+2))")  # the second's keys reach the pane: both see it
    first.wait_for("\nfrom-22", timeout=20)
    first.type_line("echo from-$((30+3))")
    second.wait_for("\nfrom-33", timeout=20)
    watcher = run("attach", "-r", sid, rows=30, cols=100)
    screen = watcher.wait_for("READ-ONLY", timeout=20)
    assert "PROMPT" not in screen and "from-33" in screen
    watcher.type_line("echo from-$((40+4))")  # dropped
    watcher.wait_for("read-only", timeout=20)
    first.type_line("echo after-$((50+5))")
    watcher.wait_for("\nafter-55", timeout=20)
    assert "from-44" not in first.text()
    # Each its own picker: the first's /resume leaves the second on its prompt.
    first.type_line("/resume")
    first.wait_for("RESUME", timeout=20)
    assert "RESUME" not in second.text() and "PROMPT" in second.text()
    first.send("\x1b")
    first.wait_for("PROMPT", timeout=20)
    # The panes take the smallest size: the second's 90x24 (less the chrome).
    first.type_line("clear; stty size")
    first.wait_for("20 90", timeout=20)
    third = run("attach", "-d", sid, rows=24, cols=80)
    third.wait_for("PROMPT", timeout=20)
    for left in (first, second, watcher):
        assert left.wait_exit() == 0
        assert "was attached from another terminal" in left.flowed()
    third.type_line("echo still-yours")
    third.wait_for("still-yours", timeout=20)


def test_stop_ends_the_session_and_tells_the_attached_client(
    run, dsh_cmd, dsh_env, dsh_home: Path, workdir: Path
) -> None:
    d = run()
    d.wait_for("PROMPT")
    # A program that ignores SIGHUP must not outlive its session.
    d.type_line("trap '' HUP; sleep 1000")
    time.sleep(0.5)
    (row,) = sessions(dsh_cmd, dsh_env, workdir)
    host = row["live_pid"]
    out = subprocess.run(
        [*dsh_cmd, "stop", row["id"]], cwd=workdir, env=dsh_env, capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0 and f"stopped session {row['id']}" in out.stdout
    assert d.wait_exit() == 0
    assert "was stopped (dsh stop)" in d.flowed()
    assert not alive(host)
    assert not running(dsh_home, "sleep 1000")
    (row,) = sessions(dsh_cmd, dsh_env, workdir)
    assert row["state"] == "closed"
    again = subprocess.run(
        [*dsh_cmd, "stop", row["id"]], cwd=workdir, env=dsh_env, capture_output=True, text=True, timeout=30
    )
    assert again.returncode == 1 and "is not running (closed)" in again.stderr


def test_attach_with_nothing_detached_says_what_there_is(run, dsh_home: Path) -> None:
    d = run("attach")
    assert d.wait_exit() == 1
    assert "no detached session in" in d.text()
    e = run()
    e.wait_for("PROMPT")
    f = run("attach")
    assert f.wait_exit() == 1
    screen = f.text()
    assert "no detached session in" in screen and "attached" in screen and "ID" in screen


def test_a_stale_socket_is_removed_and_never_hangs_the_client(run, dsh_home: Path, workdir: Path) -> None:
    d = run()
    d.wait_for("PROMPT")
    d.type_line("echo kept-in-the-snapshot")
    d.wait_for("kept-in-the-snapshot")
    wait_saved(dsh_home, b"kept-in-the-snapshot")
    kill_host(dsh_home, signal.SIGKILL)
    d.wait_exit()
    (sock,) = (dsh_home / "run").glob("*.sock")  # a host killed outright leaves its socket behind
    r = run(f"--resume={sock.stem}")
    r.wait_for("kept-in-the-snapshot", timeout=15)
    assert sock.exists() and alive(host_pid(dsh_home))  # the new host listens on it again


def test_a_client_of_another_protocol_version_gets_one_clear_line(run, dsh_home: Path) -> None:
    d = run()
    d.wait_for("PROMPT")
    (sock_path,) = (dsh_home / "run").glob("*.sock")
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(5)
    client.connect(str(sock_path))
    client.sendall(json.dumps({"dsh": "dsh", "protocol": 999, "rows": 24, "cols": 80}).encode() + b"\n")
    answer = json.loads(client.recv(65536).split(b"\n")[0])
    client.close()
    assert answer["ok"] is False and answer["protocol"] == PROTOCOL_VERSION
    assert f"speaks dsh protocol {PROTOCOL_VERSION}" in answer["error"] and "dsh stop ID" in answer["error"]
    d.type_line("echo unharmed")
    d.wait_for("unharmed")


# An interpreter another user can run (a pyenv or venv python under /root is not one).
SYSTEM_PYTHON = shutil.which("python3", path="/usr/bin:/bin")


@pytest.mark.skipif(
    os.getuid() != 0 or shutil.which("setpriv") is None or SYSTEM_PYTHON is None,
    reason="running a client as another user needs root, setpriv and a system python3",
)
def test_a_peer_of_another_uid_is_refused(run, dsh_home: Path) -> None:
    d = run()
    d.wait_for("PROMPT")
    (sock_path,) = (dsh_home / "run").glob("*.sock")
    # Open the way (the socket directory is 0700 precisely so nobody else gets here), then knock as
    # nobody: the host itself must still refuse.
    opened = [sock_path, *(p for p in sock_path.parents if not p.stat().st_mode & 0o001)]
    modes = {p: p.stat().st_mode for p in opened}
    try:
        for p in opened:
            p.chmod(0o777 if p == sock_path else 0o711)
        probe = (
            "import json, socket; s = socket.socket(socket.AF_UNIX); s.settimeout(5); "
            f"s.connect({str(sock_path)!r}); "
            's.sendall(b\'{"dsh": "dsh", "protocol": 1}\\n\'); print(s.recv(65536).decode())'
        )
        out = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", str(SYSTEM_PYTHON), "-c", probe],
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        for p, mode in modes.items():
            p.chmod(mode)
    assert out.stdout.strip(), f"the probe as nobody said nothing: {out.stderr}"
    answer = json.loads(out.stdout.splitlines()[0])
    assert answer["ok"] is False and "another user" in answer["error"]
    d.type_line("echo unharmed")
    d.wait_for("unharmed")


def test_detach_and_attach_a_hundred_times_leaks_nothing(run, dsh_cmd, dsh_env, dsh_home: Path) -> None:
    from dsh import protocol

    d = run()
    d.wait_for("PROMPT")
    host = host_pid(dsh_home)
    (sock_path,) = (dsh_home / "run").glob("*.sock")
    d.send("\x02d")
    d.wait_exit()

    def counts() -> tuple[int, int]:
        return len(os.listdir(f"/proc/{host}/fd")), len(os.listdir(f"/proc/{host}/task"))

    def attach_and_detach() -> None:
        # What the client does, by hand (the host is what must not leak; a client process per round
        # would only make the test slow): handshake, the first full frame, C-b d, the goodbye.
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.settimeout(10)
        client.connect(str(sock_path))
        client.sendall(protocol.hello(rows=30, cols=100, env={"TERM": "xterm-256color"}, pid=os.getpid()))
        frames, output, data = protocol.FrameReader(), b"", b""
        while b"\n" not in data:
            data += client.recv(65536)
        welcome, _, rest = data.partition(b"\n")
        assert json.loads(welcome)["ok"]
        goodbye, detaching = None, False
        while goodbye is None:
            for kind, payload in frames.feed(rest):
                if kind == protocol.OUTPUT:
                    output += payload
                    if b"PROMPT" in output and not detaching:  # once: the host may be gone right after
                        client.sendall(protocol.frame(protocol.INPUT, b"\x02d"))
                        detaching = True
                elif kind == protocol.CONTROL:
                    goodbye = protocol.parse_json(payload)
            rest = client.recv(65536) if goodbye is None else b""
            assert goodbye is not None or rest, "the host closed without a goodbye"
        client.close()
        assert goodbye["type"] == "exit" and "detached from" in goodbye["message"]

    def settled() -> tuple[int, int]:
        # The host opens descriptors for a moment on its own (a snapshot's temp file, the index for a
        # refresh, a query to another host): counts taken mid-way would race them. Five looks in a
        # row that agree are the host at rest.
        seen = [counts()]
        deadline = time.monotonic() + 30
        while (len(seen) < 5 or len(set(seen[-5:])) > 1) and time.monotonic() < deadline:
            time.sleep(0.1)
            seen.append(counts())
        return max(seen[-5:])

    def back_to(fds: int) -> tuple[int, int]:
        # Descriptors of the last rounds (a connection the host still closes, a refresh they queued)
        # go when that work ends: wait for it, and fail with what stayed only if they never go.
        deadline = time.monotonic() + 30
        while (now := counts())[0] > fds and time.monotonic() < deadline:
            time.sleep(0.1)
        return now

    # Attach and detach a few times first: the worker threads the view starts exist from then on.
    for _ in range(3):
        attach_and_detach()
    before = settled()
    for _ in range(100):
        attach_and_detach()
    after = back_to(before[0])
    assert after[0] <= before[0], f"file descriptors: {before[0]} before, {after[0]} after"
    # The loop's default executor starts its few workers when first needed (the machine-wide agent
    # scan asks for one every few seconds while a client is attached): a thread or two may come, but
    # a leak would be one a round.
    assert after[1] <= before[1] + 2, f"threads: {before[1]} before, {after[1]} after 100 rounds"
    a = run("attach")  # and a real client still attaches after all that
    a.wait_for("PROMPT")


def test_a_host_started_through_the_spawner_has_its_own_clients_environment(
    run, dsh_env: dict[str, str], dsh_home: Path, tmp_path: Path
) -> None:
    first = run(env={**dsh_env, "DSH_TEST_MARK": "first-terminal"})
    first.wait_for("PROMPT")
    assert len(_spawners(dsh_home)) == 1, "the first start left no spawner for the next one"
    other = tmp_path / "other"
    other.mkdir()
    second = run(cwd=other, env={**dsh_env, "DSH_TEST_MARK": "second-terminal"})
    second.wait_for("PROMPT")
    second.type_line('echo "mark=$DSH_TEST_MARK in $(basename "$(pwd)")"')  # short: never wrapped
    second.wait_for(f"mark=second-terminal in {other.name}")
    first.type_line('echo "mark=$DSH_TEST_MARK"')
    first.wait_for("mark=first-terminal")


def _spawners(dsh_home: Path, timeout: float = 10.0) -> list[int]:
    """The spawner's pid once it runs: the first client starts it after its own session is on screen."""
    from tests.conftest import is_spawner, processes_of

    deadline = time.monotonic() + timeout
    while True:
        found = [pid for pid in processes_of(dsh_home) if is_spawner(pid)]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_panes_get_the_umask_of_the_terminal_that_started_their_session(run, dsh_home: Path, tmp_path: Path) -> None:
    def started_with(mask: int, cwd: Path) -> PtyDriver:
        old = os.umask(mask)
        try:
            return run(cwd=cwd)
        finally:
            os.umask(old)

    first = started_with(0o027, tmp_path)  # this one starts the spawner
    first.wait_for("PROMPT")
    first.type_line("umask; touch made-here; ls -l made-here")
    assert "0027" in first.wait_for("-rw-r-----")
    assert _spawners(dsh_home), "the first start left no spawner for the next one"
    other = tmp_path / "other"
    other.mkdir()
    second = started_with(0o002, other)  # forked by the spawner the first one started
    second.wait_for("PROMPT")
    second.type_line("umask; touch made-here; ls -l made-here")
    assert "0002" in second.wait_for("-rw-rw-r--")


def test_a_stopped_host_is_said_and_the_detach_keys_still_get_the_user_out(run, dsh_home: Path) -> None:
    d = run()
    d.wait_for("PROMPT")
    pid = host_pid(dsh_home)
    os.kill(pid, signal.SIGSTOP)
    try:
        d.send("x")
        d.wait_for("is not answering", timeout=20)
        assert f"session host (pid {pid}) is not answering; C-b d detaches" in d.text()
        d.send("\x02d")
        assert d.wait_exit(timeout=10) == 0
        assert f"kill -CONT {pid}" in d.flowed()
    finally:
        os.kill(pid, signal.SIGCONT)
    assert alive(pid)  # the session stays
