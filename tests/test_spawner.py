"""The user's spawner: requests checked, hosts forked with the client's environment, staleness, lifetime,
and the client's way to it (started when missing, bypassed when broken)."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn

import pytest

from dsh.client import spawn
from dsh.host import spawner
from dsh.host.spec import REFUSED, SPAWNER_VERSION, STALE, TAKEN, HostSpec, ReadyPipe, install_id, spawner_request
from dsh.protocol import MAX_COLS, MAX_ROWS
from dsh.rundir import spawner_socket_path
from tests.conftest import is_spawner

# Set by `_warm` in the spawner process; a host forked from it still has it, a direct start does not.
WARMED_IN: list[int] = []


def _warm() -> None:
    WARMED_IN.append(os.getpid())


def _spawner_entry(listener: socket.socket, path: Path) -> NoReturn:
    spawner.become_spawner(listener, path, _report_entry, _warm)


def _report_entry(spec: HostSpec, ready: ReadyPipe) -> NoReturn:
    """A stand-in host: says, on its ready line, what it was given and what kind of process it is."""
    facts = {
        "spec": spec.to_dict(),
        "foo": os.environ.get("DSH_TEST_FOO"),
        "warmed_in": WARMED_IN[-1] if WARMED_IN else None,
        "pid": os.getpid(),
        "session_leader": os.getsid(0) == os.getpid(),
        "sid": os.getsid(0),
        "stdin": os.readlink("/proc/self/fd/0"),
        "fds": sorted(_fd_kinds()),
        "umask": _umask(),
        "nofile": list(resource.getrlimit(resource.RLIMIT_NOFILE)),
        "nice": os.getpriority(os.PRIO_PROCESS, 0),
    }
    if len(spec.options) > 1:
        Path(spec.options[1]).write_text(str(os.getpid()))  # this spec was served
    ready.succeed(json.dumps(facts).replace(" ", ""))
    time.sleep(float(spec.options[0]) if spec.options else 0)
    os._exit(0)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fd_kinds() -> list[str]:
    """What each open descriptor is: a socket, a pipe, a pidfd, a file (by its kind only)."""
    kinds = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # the directory listing's own descriptor, closed already
        kinds.append(target.split(":", 1)[0] if ":" in target else "file")
    return kinds


def _facts(line_or_id: str) -> dict:  # type: ignore[type-arg]
    return json.loads(line_or_id)


def _spec(tmp_path: Path, *, hold: float = 0.0) -> HostSpec:
    return HostSpec(str(tmp_path), options=[str(hold)], rows=30, cols=100)


def _serve_in_child(listener: socket.socket, path: Path, **kwargs: object) -> int:
    """Run a Spawner over `listener` in a forked child (as a client's fork would); its pid."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        code = 1
        try:
            _warm()
            spawner.Spawner(listener, path, _report_entry, **kwargs).run()  # type: ignore[arg-type]
            code = 0
        finally:
            os._exit(code)
    listener.close()
    return pid


def _listen(path: Path) -> socket.socket:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(8)
    return listener


def _ask(path: Path, payload: bytes) -> str:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(path))
        # A stale spawner answers and closes before it reads the request (as dsh.client.spawn reads on).
        with contextlib.suppress(BrokenPipeError):
            sock.sendall(payload)
        data = b""
        while b"\n" not in data.removeprefix(TAKEN.encode() + b"\n"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    # A spawner says `taken` first when it forks a host; the answer is the line after.
    return data.removeprefix(TAKEN.encode() + b"\n").split(b"\n", 1)[0].decode()


def _exited(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return True
        time.sleep(0.02)
    return False


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, **extra}


# --- the request ------------------------------------------------------------------------------------


def test_a_spec_travels_whole_and_bad_fields_are_named() -> None:
    spec = HostSpec("/w", "s1", options=["--x"], rows=3, cols=4, open_picker=True, first_argv=["claude"])
    assert vars(HostSpec.from_dict(spec.to_dict())) == vars(spec)
    with pytest.raises(ValueError, match="rows"):
        HostSpec.from_dict({"cwd": "/w", "rows": "3"})
    with pytest.raises(ValueError, match="rows"):
        HostSpec.from_dict({"cwd": "/w", "rows": True})
    with pytest.raises(ValueError, match="first_argv"):
        HostSpec.from_dict({"cwd": "/w", "first_argv": ["a", 1]})
    with pytest.raises(ValueError, match="cwd"):
        HostSpec.from_dict({"rows": 3})
    with pytest.raises(ValueError, match="window size"):
        HostSpec.from_dict({"cwd": "/w", "cols": 0})
    huge = HostSpec.from_dict({"cwd": "/w", "rows": 100000, "cols": 100000})
    assert (huge.rows, huge.cols) == (MAX_ROWS, MAX_COLS)  # as a hello's: bounded where it enters


def _line(**fields: object) -> bytes:
    body = {"spawner": SPAWNER_VERSION, "install": install_id(), "spec": {"cwd": "/"}, "env": {}}
    return json.dumps({**body, **fields}).encode() + b"\n"


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        (b"not json\n", "not JSON"),
        (json.dumps({"spawner": 999}).encode() + b"\n", "another version"),
        (
            json.dumps({"spawner": SPAWNER_VERSION, "install": ["/other/python", "/x"]}).encode() + b"\n",
            "installation",
        ),
        (
            json.dumps(
                {
                    "spawner": SPAWNER_VERSION,
                    "install": install_id(),
                    "spec": {"cwd": "/"},
                    "env": {"A": 1},
                }
            ).encode()
            + b"\n",
            "map of strings",
        ),
        (
            json.dumps(
                {
                    "spawner": SPAWNER_VERSION,
                    "install": install_id(),
                    "spec": {"cwd": "/"},
                    "env": {"A=B": "c"},
                }
            ).encode()
            + b"\n",
            "malformed",
        ),
    ],
)
def test_a_bad_request_is_refused_in_words(payload: bytes, words: str) -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(payload)
        with pytest.raises(ValueError, match=words):
            spawner.read_request(ours)


def test_an_overlong_request_is_refused_not_read_forever() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        sender = threading.Thread(target=lambda: _send_quietly(theirs, b"x" * (spawner.REQUEST_MAX + 70_000)))
        sender.start()
        with pytest.raises(ValueError, match="too long"):
            spawner.read_request(ours)
        ours.close()
        sender.join(5)


def _send_quietly(sock: socket.socket, data: bytes) -> None:
    try:
        sock.sendall(data)
    except OSError:
        pass


def test_the_code_fingerprint_follows_the_source_files(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "__pycache__").mkdir()
    before = spawner.code_fingerprint(str(tmp_path))
    (tmp_path / "pkg" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"compiled")
    assert spawner.code_fingerprint(str(tmp_path)) == before  # byte-code is not the code
    (tmp_path / "pkg" / "a.py").write_text("x = 12\n")
    edited = spawner.code_fingerprint(str(tmp_path))
    assert edited != before
    (tmp_path / "pkg" / "b.py").write_text("")
    assert spawner.code_fingerprint(str(tmp_path)) != edited


# --- the spawner -------------------------------------------------------------------------------------


def test_a_forked_host_gets_the_clients_environment_and_is_a_daemon(tmp_path: Path) -> None:
    path = tmp_path / "s.spawner"
    pid = _serve_in_child(_listen(path), path, linger=0.5)
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        lower = min(soft, 512) - 1
        context = {"umask": 0o027, "limits": {"RLIMIT_NOFILE": [lower, hard]}}
        line = _ask(path, spawner_request(_spec(tmp_path), _env(DSH_TEST_FOO="from-this-client"), context))
        word, _, rest = line.partition(" ")
        assert word == "ready", line
        facts = _facts(rest)
        assert facts["foo"] == "from-this-client"
        assert facts["warmed_in"] == pid  # forked from the spawner, after its warm-up
        assert facts["spec"]["cwd"] == str(tmp_path) and facts["spec"]["rows"] == 30
        assert not facts["session_leader"] and facts["sid"] != os.getsid(0)  # a session of its own
        assert facts["stdin"] == "/dev/null"
        # The client's umask and limits, not the spawner's or a daemon's 077.
        assert facts["umask"] == 0o027 and facts["nofile"] == [lower, hard]
        # Nothing of the spawner's leaks in (its listener, its pidfds, its pipes): only the answer socket.
        assert facts["fds"].count("socket") == 1 and "pipe" not in facts["fds"], facts["fds"]
        assert not any("pidfd" in kind for kind in facts["fds"]), facts["fds"]
        # A second client's environment is its own, not the first one's.
        line = _ask(path, spawner_request(_spec(tmp_path), _env(DSH_TEST_FOO="second")))
        assert _facts(line.partition(" ")[2])["foo"] == "second"
    finally:
        assert _exited(pid, 10)


def test_the_spawner_lives_while_a_host_lives_then_lingers_and_ends(tmp_path: Path) -> None:
    path = tmp_path / "s.spawner"
    pid = _serve_in_child(_listen(path), path, linger=0.3)
    line = _ask(path, spawner_request(_spec(tmp_path, hold=1.5), _env()))
    assert line.startswith("ready ")
    assert not _exited(pid, 1.0), "the spawner ended while its host was alive"
    assert _exited(pid, 5.0), "the spawner did not end after its last host and the linger"
    assert not path.exists()  # and took its socket with it


def test_a_spawner_whose_code_changed_says_stale_and_leaves(tmp_path: Path) -> None:
    path = tmp_path / "s.spawner"
    states = iter(["v1", "v2"])
    pid = _serve_in_child(_listen(path), path, fingerprint=lambda: next(states, "v2"), linger=30)
    assert _ask(path, spawner_request(_spec(tmp_path), _env())) == STALE
    assert not path.exists()  # already when it answers: a client's next connect starts a successor
    assert _exited(pid, 5.0)


def test_a_request_queued_as_the_spawner_leaves_is_still_served(tmp_path: Path) -> None:
    path = tmp_path / "s.spawner"
    listener = _listen(path)
    server = spawner.Spawner(listener, path, _report_entry, linger=0)
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(10)
    client.connect(str(path))  # in the backlog: connected before the socket went away
    client.sendall(spawner_request(_spec(tmp_path), _env(DSH_TEST_FOO="late")))
    server.run()  # idle past its linger: leaves at once, serving what queued
    data = b""
    while data.count(b"\n") < 2 and (chunk := client.recv(65536)):
        data += chunk
    client.close()
    taken, answer = data.decode().split("\n", 1)
    assert taken == TAKEN
    assert answer.startswith("ready ") and _facts(answer.split(" ", 1)[1].strip())["foo"] == "late"
    assert not path.exists()


def test_leaving_never_removes_a_successors_socket(tmp_path: Path) -> None:
    path = tmp_path / "s.spawner"
    old = spawner.Spawner(_listen(path), path, _report_entry, linger=0)
    path.unlink()
    successor = _listen(path)  # another spawner took the name meanwhile
    try:
        old.run()
        assert path.exists()
    finally:
        successor.close()


# --- the client's way to it -----------------------------------------------------------------------


@pytest.fixture
def spawner_path(dsh_home: Path) -> Path:
    return spawner_socket_path(install_id())


@pytest.fixture
def started_spawners() -> Iterator[list[int]]:
    """Spawners a test started through the client (ended with the test, not left to linger)."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)


def test_the_first_start_starts_the_spawner_and_the_next_ones_use_it(
    tmp_path: Path, spawner_path: Path, started_spawners: list[int]
) -> None:
    first = _facts(spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry))
    # The first host is not made to wait for a spawner's imports: it is started directly, and the
    # spawner it leaves behind serves the next ones.
    assert first["warmed_in"] is None
    second = _facts(spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry))
    started_spawners.append(second["warmed_in"])
    third = _facts(spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry))
    assert is_spawner(second["warmed_in"])
    assert second["warmed_in"] == third["warmed_in"]
    assert spawner_path.exists() and spawner_path.stat().st_mode & 0o777 == 0o600
    assert os.getpid() not in (second["warmed_in"], third["warmed_in"])


def test_a_caller_can_start_the_spawner_after_its_session_is_on_screen(
    tmp_path: Path, spawner_path: Path, started_spawners: list[int]
) -> None:
    later: list[Callable[[], None]] = []
    first = _facts(spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry, later))
    assert first["warmed_in"] is None and len(later) == 1
    assert not spawner_path.exists()  # nothing imports beside the first host yet
    later[0]()
    second = _facts(spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry, later))
    started_spawners.append(second["warmed_in"])
    assert is_spawner(second["warmed_in"]) and len(later) == 1  # served: nothing more owed


def test_a_socket_nobody_listens_on_is_replaced(
    tmp_path: Path, spawner_path: Path, started_spawners: list[int]
) -> None:
    dead = _listen(spawner_path)
    dead.close()  # the file stays, nothing behind it (a spawner killed with -9)
    direct = _facts(spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry))
    facts = _facts(spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry))
    started_spawners.append(facts["warmed_in"])
    assert direct["warmed_in"] is None and is_spawner(facts["warmed_in"])


def test_a_stale_spawner_is_replaced_after_a_direct_start(
    tmp_path: Path, spawner_path: Path, started_spawners: list[int]
) -> None:
    listener = _listen(spawner_path)

    def answer_stale() -> None:  # what a spawner whose code changed does: leave the name, then answer
        conn, _ = listener.accept()
        with conn:
            conn.recv(1 << 20)
            spawner_path.unlink()
            conn.sendall(STALE.encode() + b"\n")

    thread = threading.Thread(target=answer_stale)
    thread.start()
    try:
        direct = _facts(spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry))
    finally:
        thread.join(5)
        listener.close()
    successor = _facts(spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry))
    started_spawners.append(successor["warmed_in"])
    assert direct["warmed_in"] is None and is_spawner(successor["warmed_in"])


def test_a_broken_spawner_is_bypassed_with_a_direct_start(tmp_path: Path, spawner_path: Path) -> None:
    listener = _listen(spawner_path)
    stop = threading.Event()

    def hang_up() -> None:  # accepts and closes: a spawner dying mid-request
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            conn.close()

    thread = threading.Thread(target=hang_up)
    thread.start()
    try:
        facts = _facts(spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry))
    finally:
        stop.set()
        thread.join(5)
        listener.close()
    assert facts["warmed_in"] is None  # started from this process, not from a spawner
    assert facts["umask"] == _umask()  # this process's umask, not the daemon's 077


def test_a_refusing_spawner_is_bypassed_and_a_host_error_is_not(tmp_path: Path, spawner_path: Path) -> None:
    answers = iter([f"{REFUSED} the request is from another version of dsh", "error cannot enter /nowhere"])
    listener = _listen(spawner_path)

    def answer_twice() -> None:
        for text in answers:
            conn, _ = listener.accept()
            with conn:
                conn.recv(1 << 20)
                conn.sendall(text.encode() + b"\n")

    thread = threading.Thread(target=answer_twice)
    thread.start()
    try:
        facts = _facts(spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry))
        assert facts["warmed_in"] is None
        with pytest.raises(spawn.HostStartError, match="cannot enter /nowhere"):
            spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry)
    finally:
        thread.join(5)
        listener.close()


@pytest.mark.parametrize(("value", "spawned"), [("1", False), ("0", True), ("", True)])
def test_dsh_no_spawner_starts_the_host_directly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, started_spawners: list[int], value: str, spawned: bool
) -> None:
    monkeypatch.setenv("DSH_NO_SPAWNER", value)
    first = _facts(spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry))
    facts = _facts(spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry))
    if facts["warmed_in"] is not None:
        started_spawners.append(facts["warmed_in"])
    assert first["warmed_in"] is None
    assert (facts["warmed_in"] is not None) is spawned


def test_a_captured_context_is_applied_and_junk_in_it_is_ignored() -> None:
    from dsh import inherit

    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            os.umask(0o077)
            _soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
            inherit.apply({"umask": 0o022, "limits": {"RLIMIT_CORE": [0, hard], "RLIMIT_BOGUS": [1, 1]}})
            inherit.apply({"umask": "022", "limits": {"RLIMIT_NOFILE": ["x", 1]}})  # ignored
            inherit.apply(None)
            os.write(write_fd, json.dumps([_umask(), resource.getrlimit(resource.RLIMIT_CORE)[0]]).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    os.waitpid(pid, 0)
    got = json.loads(os.read(read_fd, 100))
    os.close(read_fd)
    assert got == [0o022, 0]
    assert inherit.capture()["umask"] == _umask()


def test_a_host_forked_for_a_niced_terminal_runs_niced(
    tmp_path: Path, spawner_path: Path, started_spawners: list[int]
) -> None:
    direct = _facts(spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry))  # starts it
    assert direct["nice"] == os.getpriority(os.PRIO_PROCESS, 0)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child: `nice -n 5 dsh`, beside the spawner started at the usual 0
        try:
            os.nice(5)
            os.write(write_fd, spawn.start_session_host(_spec(tmp_path), _report_entry, _spawner_entry).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    os.waitpid(pid, 0)
    facts = _facts(os.read(read_fd, 65536).decode())
    os.close(read_fd)
    started_spawners.append(facts["warmed_in"])
    assert is_spawner(facts["warmed_in"])  # forked by the spawner, which runs at the usual nice value
    assert facts["nice"] == os.getpriority(os.PRIO_PROCESS, 0) + 5


def test_a_terminal_less_niced_than_the_spawner_is_refused_so_its_client_starts_the_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dsh import inherit

    own = os.getpriority(os.PRIO_PROCESS, 0)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)  # an ordinary user, whose RLIMIT_NICE is 0
    monkeypatch.setattr(resource, "getrlimit", lambda which: (0, 0))
    assert inherit.unmet({"nice": own - 1}) is not None
    assert inherit.unmet({"nice": own}) is None and inherit.unmet({"nice": own + 3}) is None
    assert inherit.unmet({"nice": "x"}) is None and inherit.unmet(None) is None
    path = tmp_path / "s.spawner"
    server = spawner.Spawner(_listen(path), path, _report_entry, linger=0)
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(10)
    client.connect(str(path))
    client.sendall(spawner_request(_spec(tmp_path), _env(), {"nice": own - 1}))
    server.run()
    answer = client.recv(65536).decode()
    client.close()
    assert answer.startswith(f"{REFUSED} the terminal's nice value {own - 1} is below the spawner's {own}")


def test_a_spawner_that_fails_in_its_fork_never_returns_into_the_client(tmp_path: Path) -> None:
    """The client forks the spawner; whatever the spawner's code raises in that child, the child ends
    there: it must not carry on as a second client on the user's terminal."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from dsh.client.spawn import _start_spawner

        def broken(listener, path):
            raise PermissionError("a file the spawner's imports needed could not be read")

        _start_spawner(Path({str(tmp_path / "spawner.sock")!r}), broken)
        print("back in the client", flush=True)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("back in the client") == 1, done.stdout


def test_the_wait_for_a_spawner_is_short_and_a_clock_set_back_makes_it_no_longer() -> None:
    now = 1_000_000.0
    with tempfile.NamedTemporaryFile() as handle:
        path = Path(handle.name)
        os.utime(path, (now - 3600, now - 3600))
        assert spawn.taken_timeout(path, now) == spawn.TAKEN_TIMEOUT  # an old spawner answers at once
        os.utime(path, (now - 1, now - 1))
        assert spawn.taken_timeout(path, now) == spawn.SPAWNER_WARMUP - 1  # one warming up gets the rest
        # Made "in the future": the clock was set back since. Taken as old (it made a client wait 30 s).
        os.utime(path, (now + 3600, now + 3600))
        assert spawn.taken_timeout(path, now) == spawn.TAKEN_TIMEOUT
    assert spawn.taken_timeout(Path("/nonexistent/spawner")) == spawn.TAKEN_TIMEOUT


def test_a_stopped_spawner_is_bypassed_and_the_request_it_finds_later_is_withdrawn(
    tmp_path: Path, spawner_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bounds: list[float] = []
    real_bound = spawn.taken_timeout
    monkeypatch.setattr(spawn, "taken_timeout", lambda path: bounds.append(real_bound(path)) or bounds[-1])
    listener = _listen(spawner_path)
    # Born "an hour from now": a clock set back since then must not make this client wait longer.
    later = time.time() + 3600
    os.utime(spawner_path, (later, later))
    pid = _serve_in_child(listener, spawner_path, linger=30)
    os.kill(pid, signal.SIGSTOP)
    marker = tmp_path / "served-late"
    try:
        said: list[str] = []
        facts = _facts(
            spawn.start_session_host(_spec_marked(tmp_path, marker), _report_entry, _spawner_entry, say=said.append)
        )
        (line,) = said  # the wait is said, once, with what was done
        assert f"the spawner ({spawner_path}) did not take the request in " in line, line
        assert "the host is started directly" in line and "kill -CONT" in line, line
        assert facts["warmed_in"] is None  # started directly, not by the stopped spawner
        # The client waited TAKEN_TIMEOUT for the spawner to take it, not the 30 s of old (no clock read here).
        assert bounds == [spawn.TAKEN_TIMEOUT], bounds
        marker.unlink()  # the direct start's own
        os.kill(pid, signal.SIGCONT)
        # The next request is served only after the withdrawn one was read (one at a time, in order).
        assert _ask(spawner_path, spawner_request(_spec(tmp_path), _env())).startswith("ready ")
        assert not marker.exists(), "a request withdrawn by its client was served later to nobody"
    finally:
        os.kill(pid, signal.SIGCONT)
        os.kill(pid, signal.SIGTERM)
        _exited(pid, 5)


def _spec_marked(tmp_path: Path, marker: Path) -> HostSpec:
    return HostSpec(str(tmp_path), options=["0", str(marker)], rows=30, cols=100)
