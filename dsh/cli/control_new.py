"""`dsh new -d`: a new session with no client attached (tmux's `new-session -d`), its id printed."""

from __future__ import annotations

import os
import sys
from typing import Any

from dsh.client.control import ControlError, call


def new_session(options: dict[str, Any], rest: list[str]) -> int:
    from dsh.cli.control_cmd import UsageError, _int, _print_json
    from dsh.cli.run import _host_entry, _spawner_entry
    from dsh.client.spawn import HostStartError, start_session_host
    from dsh.home import HomeError, check_home
    from dsh.host.spec import HostSpec
    from dsh.rundir import RunDirError, socket_path

    if not options.get("detached"):
        raise UsageError("dsh new starts a detached session: dsh new -d (plain dsh starts one here and attaches it)")
    try:
        here = os.getcwd()
    except OSError as exc:
        raise ControlError(f"cannot tell the current directory ({exc.strerror}); give -c DIR") from exc
    cwd = os.path.realpath(os.path.join(here, os.path.expanduser(options.get("cwd") or ".")))
    if not os.path.isdir(cwd):
        raise ControlError(f"no directory {cwd}")
    cols = _int(options, "cols", low=20) or 80
    rows = _int(options, "rows", low=5) or 24
    spec = HostSpec(
        cwd=cwd, rows=min(rows, 1000), cols=min(cols, 1000), launch_dir=here, first_argv=rest or None, detached=True
    )
    try:
        check_home()
        # A spawner bypassed is said on stderr: stdout is the session id, for a script to read.
        session_id = start_session_host(spec, _host_entry, _spawner_entry, say=_say)
    except (HomeError, RunDirError, HostStartError) as exc:
        raise ControlError(str(exc)) from exc
    if options.get("name"):
        call(str(socket_path(session_id)), {"verb": "rename", "what": "session", "name": options["name"]})
    if options.get("json"):
        _print_json({"session": session_id, "cwd": cwd})
    else:
        sys.stdout.write(session_id + "\n")
    return 0


def _say(line: str) -> None:
    from dsh.cli.output import say  # escaped as every CLI message is (dsh.cli.output)

    say(line)
