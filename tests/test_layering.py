"""Parts import downward only: models never touch prompt_toolkit, and the client never loads it."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "dsh"

# Who may import what (by top-level part of dsh). Everything not listed is a model: it may import
# other models only.
TOP = {"cli"}
VIEW = {"ui"}
PROCESS = {"host", "client"}
MAY_IMPORT = {
    "cli": None,  # the composition root: anything
    "__main__": None,
    "ui": {"host", "session"},
    "host": {"session"},
    "client": {"host.spec"},  # the start contract it shares with the host
    "session": set(),
}


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def _part(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0].removesuffix(".py") if len(relative.parts) > 1 else relative.stem


def test_no_part_below_the_view_imports_prompt_toolkit() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE.parent)} imports {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if _part(path) not in VIEW
        for name in _imports(path)
        if name == "prompt_toolkit" or name.startswith("prompt_toolkit.")
    ]
    assert offenders == []


def test_parts_import_downward_only() -> None:
    upper = TOP | VIEW | PROCESS | {"session"}
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        part = _part(path)
        allowed = MAY_IMPORT.get(part, set())
        if allowed is None:
            continue
        for name in _imports(path):
            if not name.startswith("dsh."):
                continue
            target = name.split(".")[1]
            if target == part or target not in upper:
                continue
            if any(name == f"dsh.{ok}" or name.startswith(f"dsh.{ok}.") for ok in allowed):
                continue
            offenders.append(f"{path.relative_to(PACKAGE.parent)} ({part}) imports {name}")
    assert offenders == []


def _loaded_after(imports: str, then: str, modules: str) -> list[str]:
    """Which of `modules` (a Python expression of names) a fresh interpreter holds after `imports`
    and `then` ran."""
    code = f"import sys\n{imports}\n{then}\nprint(sorted(m for m in sys.modules if {modules}))\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return ast.literal_eval(out.stdout.strip())


def test_the_client_path_loads_no_prompt_toolkit() -> None:
    # Start-up speed: everything the `dsh` client runs before it hands the terminal to a host.
    imports = (
        "import dsh.cli, dsh.cli.run, dsh.cli.attach_cmd, dsh.cli.sessions\n"
        "import dsh.client.attach, dsh.client.spawn, dsh.client.tty, dsh.client.session_flow\n"
        "import dsh.store.store, dsh.resume.preflight, dsh.resume.handoff, dsh.rundir"
    )
    parse = "dsh.cli.build_parser().parse_args([])"
    assert _loaded_after(imports, parse, "m.split('.')[0] == 'prompt_toolkit'") == []


def test_a_new_sessions_client_path_loads_neither_typing_nor_tempfile() -> None:
    # `dsh` in a new workspace: parse the words, find the spawner, ask it for a host, attach. Both
    # modules are 5-10 ms each of every start, and nothing on this path needs them at run time.
    imports = (
        "import os, dsh.cli, dsh.cli.run, dsh.client.attach, dsh.client.spawn, dsh.client.tty, dsh.home, dsh.rundir, "
        "dsh.client.session_flow"
    )
    run = "dsh.client.session_choice.choose_target(dsh.cli.run.intent_from_args(dsh.cli.quick_args([])), os.getcwd())"
    assert _loaded_after(imports, run, "m in ('typing', 'tempfile')") == []


def test_the_attach_clients_path_loads_neither_typing_nor_hashlib() -> None:
    # `dsh attach`: parse the words, ask the running hosts which is detached here, attach. hashlib
    # loads OpenSSL (5 ms); the workspace rule needs it only when a session's folder is named. (The
    # running hosts are stood in for: what they answer is not what is measured here.)
    imports = (
        "import os, dsh.cli, dsh.cli.run, dsh.client.attach, dsh.client.live, dsh.client.session_flow, "
        "dsh.store.workspace"
    )
    run = (
        "dsh.client.live.running_hosts = lambda _=None: [{'session': 'h1', 'cwd': os.getcwd(), 'attached': False}]\n"
        "intent = dsh.cli.run.intent_from_args(dsh.cli.quick_args(['attach']))\n"
        "assert dsh.client.session_choice.choose_target(intent, os.getcwd()).session_id == 'h1'"
    )
    assert _loaded_after(imports, run, "m in ('typing', 'tempfile', 'hashlib')") == []


def test_the_scripting_verbs_load_next_to_nothing() -> None:
    # `dsh report` runs in every agent turn (and `dsh send` in loops, on the same path): inside a pane
    # (DSH_SOCKET), the whole path, the installed script (bin/dsh) included, imports only these beyond
    # Python's start. (An error's message is sanitized, which costs more: it is the way out.)
    repo = PACKAGE.parent
    script = ast.parse((repo / "bin" / "dsh").read_text())
    assert sorted(_imports_of(script)) == ["dsh.cli", "sys"]  # pip's console script would add re
    probe = (
        "import os, sys\nbefore = set(sys.modules)  # a start with site has os already\n"
        "from dsh.cli import main\n"
        "assert main(['report', '--state', 'working']) == 0\n"
        "print(sorted(set(sys.modules) - before))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(repo), "DSH_SOCKET": "/nonexistent/s1.sock"}
    env.update(DSH_SESSION_ID="s1", DSH_PANE_ID="p1")
    out = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    loaded = set(ast.literal_eval(out.stdout.strip()))
    ours = {"dsh", "dsh.cli", "dsh.cli.control_cmd", "dsh.client", "dsh.client.control"}
    assert loaded <= {"__future__", "_json", "_socket", *ours}, loaded


def _imports_of(tree: ast.Module) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def test_the_listing_another_machine_asks_for_loads_no_dataclasses(tmp_path: Path) -> None:
    # Another machine's picker runs `dsh sessions --all --json --version-first` over ssh for its first
    # rows: dataclasses with inspect (13 ms), the snapshot's records and the agents' adapters come only
    # with a session that has saved panes, and hashlib (OpenSSL) only with an agent's store to stamp.
    import json

    from dsh.store.workspace import workspace_partition

    home = tmp_path / "home"
    part = home / "sessions" / workspace_partition("/src/project")
    part.mkdir(parents=True, mode=0o700)
    os.chmod(home, 0o700)
    sid = "20261202T180000Z-000001"
    lines = [
        {"type": "session", "version": 1, "id": sid, "cwd": "/src/project", "created_at": "2026-12-02T18:00:00Z"},
        {"type": "title", "at": "2026-12-02T18:00:01Z", "title": "task one"},
        {"type": "close", "at": "2026-12-02T18:00:02Z"},
    ]
    (part / f"{sid}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    probe = (
        "import sys\nfrom dsh.cli import main\n"
        "code = main(['sessions', '--all', '--json', '--version-first'])\nsys.stdout.flush()\n"
        "print(code, sorted(m for m in sys.modules if m in ('dataclasses', 'inspect', 'hashlib') or "
        "m.startswith(('dsh.persist.records', 'dsh.persist.snapshot', 'dsh.agents.base'))), file=sys.stderr)\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(PACKAGE.parent), "DSH_HOME": str(home), "HOME": str(tmp_path)}
    for _run in range(2):  # the first builds the index, the second reads it, as a machine in use does
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, env=env)
        assert out.returncode == 0, out.stderr
        version, rows = out.stdout.split("\n", 1)
        assert version.startswith("dsh ")
        assert [row["title"] for row in json.loads(rows)] == ["task one"]
        assert out.stderr.strip() == "0 []"
