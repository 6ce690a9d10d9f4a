"""What a session's host takes from the terminal it was started for: its umask, limits and nice value.

A host is a daemon (umask 077 for its own files, which it opens with explicit modes anyway), and one
forked by the spawner has the limits and nice value of whichever terminal started the spawner. The
programs in its panes must see what they would have seen started from this terminal: files a build or a
`git clone` makes there are 0644 under the usual umask 022, not private, `ulimit -n` set in this
terminal holds, and a `dsh` started with `nice` runs its panes niced (and one started without, not).
"""

from __future__ import annotations

import contextlib
import os

# The limits a shell's `ulimit` sets and that a program in a pane would notice.
LIMITS = ("RLIMIT_CORE", "RLIMIT_CPU", "RLIMIT_DATA", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_STACK")


def capture() -> dict[str, object]:
    """This process's umask and limits, JSON-ready."""
    import resource

    mask = os.umask(0o077)  # reading the umask means setting it: put it straight back
    os.umask(mask)
    limits: dict[str, list[int]] = {}
    for name in LIMITS:
        number = getattr(resource, name, None)
        if number is not None:
            with contextlib.suppress(OSError, ValueError):
                limits[name] = list(resource.getrlimit(number))
    return {"umask": mask, "limits": limits, "nice": os.getpriority(os.PRIO_PROCESS, 0)}


def unmet(context: object) -> str | None:
    """What of a captured context this process could not take on, or None: a nice value below its own
    (only a privileged process may lower it; RLIMIT_NICE can allow some)."""
    import resource

    nice = _nice(context)
    own = os.getpriority(os.PRIO_PROCESS, 0)
    if nice is None or nice >= own or os.geteuid() == 0:
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_NICE)
    if soft == resource.RLIM_INFINITY or 20 - nice <= soft:
        return None
    return f"the terminal's nice value {nice} is below the spawner's {own}"


def _nice(context: object) -> int | None:
    value = context.get("nice") if isinstance(context, dict) else None
    if isinstance(value, int) and not isinstance(value, bool) and -20 <= value <= 19:
        return value
    return None


def apply(context: object) -> None:
    """Take on a captured umask, limits and nice value, as far as this process may (a hard limit is only
    ever lowered, a nice value only raised unless privileged; whatever cannot be set is left as it was)."""
    import resource

    if not isinstance(context, dict):
        return
    nice = _nice(context)
    if nice is not None and nice != os.getpriority(os.PRIO_PROCESS, 0):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, 0, nice)
    mask = context.get("umask")
    if isinstance(mask, int) and not isinstance(mask, bool) and 0 <= mask <= 0o777:
        os.umask(mask)
    limits = context.get("limits")
    if not isinstance(limits, dict):
        return
    for name, value in limits.items():
        number = getattr(resource, name, None) if name in LIMITS else None
        if number is None or not isinstance(value, list) or len(value) != 2:
            continue
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            continue
        with contextlib.suppress(OSError, ValueError):
            resource.setrlimit(number, (value[0], value[1]))
