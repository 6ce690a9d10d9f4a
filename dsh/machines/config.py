"""The machines in config: `[machines.NAME]` tables, and the ssh program and time limit that reach them."""

from __future__ import annotations

import re
import shlex

from dsh.config.model import Config
from dsh.values import Value

MACHINE_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
# Keys of `[machines]` itself (typed and bounded by dsh.config.table); every other key is a machine's table.
SETTINGS = ("ssh_command", "timeout_seconds")
# How often a machine's agents may be asked for their states (0: never, the default: each ask is an
# ssh round trip and a dsh start there).
ATTENTION_RANGE = (1.0, 3600.0)


class Machine(Value, fields=("name", "ssh", "dsh", "attention"), frozen=True):
    """One machine: `ssh` is what `ssh` is given as its destination (`user@host`, a Host alias);
    `dsh` the command line that runs dsh there (a path, or a wrapper); `attention` how often its
    agents' states are asked while a client is attached here, in seconds (0: never)."""

    name: str
    ssh: str
    dsh: str
    attention: float

    def __init__(self, name: str, ssh: str, dsh: str = "dsh", attention: float = 0.0) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "ssh", ssh)
        object.__setattr__(self, "dsh", dsh)
        object.__setattr__(self, "attention", attention)


class MachineConfig(Value, fields=("machines", "ssh_command", "timeout", "warnings")):
    machines: list[Machine]
    ssh_command: list[str]
    timeout: float
    warnings: list[str]

    def __init__(self, machines: list[Machine], ssh_command: list[str], timeout: float, warnings: list[str]) -> None:
        self.machines = machines
        self.ssh_command = ssh_command
        self.timeout = timeout
        self.warnings = warnings

    def find(self, name: str) -> Machine | None:
        return next((m for m in self.machines if m.name == name), None)


def read_machines(config: Config) -> MachineConfig:
    """The `[machines]` table of a loaded config, checked: a bad entry is left out with a warning."""
    table = config.get("machines")
    warnings: list[str] = []
    if not isinstance(table, dict):
        table = {}
    command_text = config.text("machines.ssh_command")
    try:
        ssh_command = shlex.split(command_text)
    except ValueError as exc:
        ssh_command = []
        warnings.append(f"machines.ssh_command: {exc}")
    if not ssh_command:
        warnings.append("machines.ssh_command is empty or not text; using ssh")
        ssh_command = ["ssh"]
    timeout = config.number("machines.timeout_seconds")  # bounded by the loader
    machines: list[Machine] = []
    for name, entry in table.items():
        if name in SETTINGS:
            continue
        machine, why = _machine(name, entry)
        if machine is None:
            warnings.append(f"machines.{name}: {why}; left out")
            continue
        machines.append(machine)  # a key it does not know is said by the loader (dsh.config.unknown)
    return MachineConfig(machines, ssh_command, timeout, warnings)


def _machine(name: object, entry: object) -> tuple[Machine | None, str]:
    if not isinstance(name, str) or MACHINE_NAME_RE.fullmatch(name) is None:
        return None, "a machine's name is letters, digits, '.', '_' and '-'"
    if not isinstance(entry, dict):
        return None, 'must be a table with ssh = "user@host"'
    ssh = entry.get("ssh")
    if not isinstance(ssh, str) or not ssh.strip() or ssh.startswith("-") or any(c.isspace() for c in ssh):
        # A destination that starts with '-' would be read by ssh as an option.
        return None, 'ssh must be a destination such as "user@host" or a Host alias, without spaces'
    dsh = entry.get("dsh", "dsh")
    if not isinstance(dsh, str) or not dsh.strip():
        return None, "dsh must be the command line that runs dsh there"
    every = entry.get("attention_seconds", 0)
    low, high = ATTENTION_RANGE
    if isinstance(every, bool) or not isinstance(every, int | float) or not (every == 0 or low <= every <= high):
        return None, f"attention_seconds must be 0 (off) or a number from {low:g} to {high:g}"
    return Machine(name, ssh, dsh, float(every)), ""
