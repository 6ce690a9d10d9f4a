"""`dsh stop` works on a host of another protocol version: it cannot be asked, so it is signalled."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from dsh.rundir import socket_path
from tests.hostile import assert_clean, run_dsh

# A host of protocol 1: it refuses every hello of another version in words, and ends its session on
# SIGTERM (as every dsh host has).
OLD_HOST = """
import json, signal, socket, sys
from dsh.rundir import bind_private
from pathlib import Path
listener = bind_private(Path(sys.argv[1]))
listener.listen(4)
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
print("listening", flush=True)
while True:
    conn, _ = listener.accept()
    conn.recv(65536)
    conn.sendall(json.dumps({"dsh": "dsh", "protocol": 1, "ok": False, "error": "speaks protocol 1"}).encode() + b"\\n")
    conn.close()
"""


def test_stop_ends_a_host_of_the_previous_protocol_and_says_how(
    dsh_cmd: list[str], dsh_env: dict[str, str], tmp_path: Path
) -> None:
    sid = "20261201T000000Z-0ld0ld"
    old = subprocess.Popen(
        [sys.executable, "-c", OLD_HOST, str(socket_path(sid))], env=dsh_env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert old.stdout is not None and old.stdout.readline().strip() == "listening"
        result = run_dsh(dsh_cmd, dsh_env, "stop", sid, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert f"stopped session {sid} (its host spoke protocol 1: ended with SIGTERM)" in result.stdout
        assert_clean(result)
        deadline = time.monotonic() + 10
        while old.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert old.poll() == 0  # ended by the SIGTERM, as an old host ends its session
    finally:
        old.kill()
        old.wait()
