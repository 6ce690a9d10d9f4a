"""The socket directory: private to the user, refused when it is not, and socket paths that fit."""

from __future__ import annotations

import os
import signal
import socket
import tempfile
import time
from pathlib import Path

import pytest

from dsh import rundir
from dsh.rundir import (
    SOCKET_PATH_MAX,
    PeerError,
    RunDirError,
    bind_private,
    connect_private,
    host_log_path,
    host_socket_dirs,
    run_dir,
    runtime_dir_problem,
    socket_path,
)
from dsh.store.ids import InvalidSessionId


def test_the_run_dir_is_made_private_under_dsh_home(dsh_home: Path) -> None:
    path = run_dir()
    assert path == dsh_home / "run"
    assert path.stat().st_mode & 0o777 == 0o700
    assert socket_path("s1") == path / "s1.sock"


def test_xdg_runtime_dir_is_used_when_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runtime = tmp_path / "xdg"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert run_dir() == runtime / "dsh"


@pytest.mark.parametrize("mode", [0o755, 0o770, 0o777])
def test_a_run_dir_others_can_enter_is_refused_with_the_fix(dsh_home: Path, mode: int) -> None:
    (dsh_home / "run").mkdir(mode=mode)
    os.chmod(dsh_home / "run", mode)
    with pytest.raises(RunDirError, match=r"chmod 700 .*/run"):
        run_dir()


def test_a_symlinked_run_dir_is_refused(dsh_home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (dsh_home / "run").symlink_to(elsewhere)
    with pytest.raises(RunDirError, match="symbolic link"):
        run_dir()


def test_a_socket_path_too_long_for_an_address_is_bound_and_reached_where_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Through a descriptor of its folder, a socket 200 bytes deep is still in the run dir, where every
    # listing looks (a short fallback elsewhere was missed by them).
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setenv("DSH_HOME", str(deep))
    path = socket_path("20261201T000000Z-abcdef")
    assert path == deep / "run" / "20261201T000000Z-abcdef.sock"
    assert len(os.fsencode(str(path))) > SOCKET_PATH_MAX
    listener = bind_private(path)
    try:
        listener.listen(1)
        assert path.stat().st_mode & 0o777 == 0o600
        client = connect_private(path, 5.0)
        assert client is not None
        client.close()
        assert host_socket_dirs() == [deep / "run"]
    finally:
        listener.close()


def test_without_proc_a_long_path_falls_back_to_a_folder_of_its_own_that_listings_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rundir, "_FD_DIR", str(tmp_path / "no-proc"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    paths = []
    for home in ("a", "b"):
        deep = tmp_path / home / ("d" * 60) / ("e" * 60)
        deep.mkdir(parents=True)
        monkeypatch.setenv("DSH_HOME", str(deep))
        path = socket_path("20261201T000000Z-abcdef")
        # Under the system temp folder (short: this test's stands in for /tmp), named as in the run dir.
        assert path.parent.parent == tmp_path / "tmp" / f"dsh-{os.getuid()}"
        assert path.name == "20261201T000000Z-abcdef.sock"
        assert path.parent.stat().st_mode & 0o777 == 0o700 and path.parent.stat().st_uid == os.getuid()
        assert socket_path("20261201T000000Z-abcdef") == path  # the same id finds the same socket
        assert host_socket_dirs() == [deep / "run", path.parent]  # and the listings look there
        paths.append(path)
    assert paths[0].parent != paths[1].parent  # two homes never see each other's hosts


def test_a_fallback_folder_another_user_made_first_is_refused_with_a_fix_that_is_possible(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if os.getuid() != 0:
        pytest.skip("planting another user's folder needs root here")
    monkeypatch.setattr(rundir, "_FD_DIR", str(tmp_path / "no-proc"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    planted = tmp_path / "tmp" / f"dsh-{os.getuid()}"
    planted.mkdir(mode=0o700)
    os.chown(planted, 65534, 65534)
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setenv("DSH_HOME", str(deep))
    with pytest.raises(RunDirError) as caught:
        socket_path("20261201T000000Z-abcdef")
    # Not "remove it" nor "chown" (a sticky /tmp lets only its owner or root do that, and chown is
    # root's): who made it, and what the user can do instead.
    said = str(caught.value)
    assert "XDG_RUNTIME_DIR" in said and "shorter DSH_HOME" in said, said
    assert "chown" not in said and "remove it:" not in said and "rm " not in said, said
    assert f"{planted}: it is a folder made by uid 65534, not by you" in said, said


def test_a_fallback_taken_by_another_users_link_is_refused_with_what_the_user_can_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dsh.rundir import short_dir_for

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    real_uid = os.getuid()
    (tmp_path / "tmp" / "dsh-4321").symlink_to(elsewhere)
    monkeypatch.setattr(os, "getuid", lambda: 4321)  # the link is then another user's
    with pytest.raises(RunDirError) as caught:
        short_dir_for(tmp_path / "run")  # as the ssh control sockets of a long run dir ask (no fix given)
    said = str(caught.value)
    assert f"a symbolic link made by uid {real_uid}, not by you (uid 4321)" in said, said
    assert "only its owner or root can remove it" in said and "XDG_RUNTIME_DIR" in said and "chown" not in said
    monkeypatch.setattr(os, "getuid", lambda: real_uid)
    planted = tmp_path / "tmp" / f"dsh-{real_uid}"
    planted.symlink_to(elsewhere)
    with pytest.raises(RunDirError) as caught:
        short_dir_for(tmp_path / "run")  # the user's own link: theirs to remove
    assert f"is a symbolic link, not a folder: remove it (rm {planted})" in str(caught.value)
    assert not any(elsewhere.iterdir())  # nothing made through the link


def test_the_directory_is_checked_on_its_descriptor_so_a_swap_after_the_check_reaches_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The race of issue 28: the run dir swapped for a link to another's folder between the check and
    # the connect. Checked and connected through one descriptor, the connect still lands in the folder
    # that was checked (where nothing listens), never in the one swapped in.
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    mine.mkdir(mode=0o700)
    theirs.mkdir(mode=0o700)
    bait = socket.socket(socket.AF_UNIX)
    bait.bind(str(theirs / "s1.sock"))
    bait.listen(1)
    bait.setblocking(False)
    real_open = rundir.open_private_dir

    def open_then_swap(path: Path, **kw: str) -> int:
        fd = real_open(path, **kw)
        mine.rename(tmp_path / "moved")
        mine.symlink_to(theirs)
        return fd

    monkeypatch.setattr(rundir, "open_private_dir", open_then_swap)
    try:
        assert connect_private(mine / "s1.sock", 2.0) is None
        with pytest.raises(BlockingIOError):
            bait.accept()  # nobody came
    finally:
        bait.close()
    monkeypatch.setattr(rundir, "open_private_dir", real_open)
    with pytest.raises(RunDirError, match="not a directory"):
        connect_private(mine / "s1.sock", 2.0)  # and the link itself is refused


def test_a_directory_of_another_user_or_open_to_others_is_refused_on_the_descriptor(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    folder.chmod(0o711)
    with pytest.raises(RunDirError, match="chmod 700"):
        connect_private(folder / "s.sock")
    if os.getuid() == 0:
        folder.chmod(0o700)
        os.chown(folder, 65534, 65534)
        with pytest.raises(RunDirError, match="another user"):
            connect_private(folder / "s.sock")


def _listen_as(uid: int, path: Path) -> int:
    """A child that binds `path` as this user, then listens and accepts as `uid` (a planted listener);
    its pid. SO_PEERCRED gives a client the credentials of listen()."""
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(ready_r)
            sock = socket.socket(socket.AF_UNIX)
            sock.bind(str(path))
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            sock.listen(4)
            os.write(ready_w, b"1")
            while True:
                conn, _ = sock.accept()
                if conn.recv(65536):
                    os.write(ready_w, b"got bytes")
        finally:
            os._exit(0)
    os.close(ready_w)
    os.read(ready_r, 1)
    os.set_blocking(ready_r, False)
    _children[pid] = ready_r
    return pid


_children: dict[int, int] = {}


def test_a_listener_of_another_uid_in_the_run_dir_is_refused_before_a_byte_is_sent(tmp_path: Path) -> None:
    if os.getuid() != 0:
        pytest.skip("a listener of another uid needs root here")
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    pid = _listen_as(65534, folder / "s.sock")
    try:
        with pytest.raises(PeerError, match=r"s\.sock.*uid 65534"):
            connect_private(folder / "s.sock", 2.0)
        time.sleep(0.2)
        with pytest.raises(BlockingIOError):
            os.read(_children[pid], 64)  # it was sent nothing
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(_children.pop(pid))


def test_an_xdg_runtime_dir_that_is_not_the_users_is_passed_over_with_the_reason(
    dsh_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "xdg"
    runtime.mkdir(mode=0o700)
    runtime.chmod(0o777)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert run_dir() == dsh_home / "run"
    assert "can be written by others" in str(runtime_dir_problem())
    if os.getuid() == 0:
        runtime.chmod(0o700)
        os.chown(runtime, 65534, 65534)
        assert run_dir() == dsh_home / "run"
        assert "belongs to uid 65534" in str(runtime_dir_problem())
    runtime.chmod(0o700)
    os.chown(runtime, os.getuid(), os.getgid())
    assert runtime_dir_problem() is None and run_dir() == runtime / "dsh"


def test_ids_never_become_paths() -> None:
    with pytest.raises(InvalidSessionId):
        socket_path("../evil")
    with pytest.raises(InvalidSessionId):
        host_log_path("a/b")
