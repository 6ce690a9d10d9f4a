"""Agent attention's costs: `dsh report --hook` as a whole process (what every agent turn pays), a
hook's report to the glyph on the attached screen (the host's side, and end to end: from the report
process's start to the state drawn on an attached client's terminal, read back through a PTY), and
/agents over 50 sessions x 4 agent panes; each beside a reference measured in the same run, with the
machine's load.

    .venv/bin/python bench/attention.py [--runs 30] [--python /path/to/a/regular/install/bin/python]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


def show(name: str, values: list[float], reference: list[float] | None = None) -> None:
    line = f"{name:<52} p50 {statistics.median(values):7.2f} ms   p99 {pct(values, 99):7.2f} ms"
    if reference:
        line += f"   x{statistics.median(values) / statistics.median(reference):.2f} of the reference"
    print(line)


class LivePane:
    """A detached session of the dsh under test in a fresh DSH_HOME, its pane, and the environment a
    hook started in that pane has (what both whole-process measures need); `stop()` ends it."""

    def __init__(self, python: str) -> None:
        self.home = tempfile.mkdtemp(prefix="dsh-bench-attention-")
        self.env = {**os.environ, "DSH_HOME": self.home, "SHELL": "/bin/sh", "TERM": "xterm-256color"}
        self.env.pop("XDG_RUNTIME_DIR", None)
        # -P: run from the bench's folder, the repo's dsh/ must not stand in for the install measured.
        self.dsh = [python, "-P", "-m", "dsh"]
        made = subprocess.run(
            [*self.dsh, "new", "-d", "--json"], env=self.env, capture_output=True, text=True, timeout=60, cwd=self.home
        )
        self.session = json.loads(made.stdout)["session"]
        self.pane = next(p["id"] for s in self.listed() for t in s["tabs"] for p in t["panes"])
        os.environ["DSH_HOME"] = self.home  # socket_path below is this home's
        from dsh.rundir import socket_path

        self.hook_env = {
            **self.env,
            "DSH_SESSION_ID": self.session,
            "DSH_PANE_ID": self.pane,
            "DSH_SOCKET": str(socket_path(self.session)),
        }

    def listed(self) -> list[dict]:
        done = subprocess.run([*self.dsh, "list", "--all", "--json"], env=self.env, capture_output=True, text=True)
        return json.loads(done.stdout)

    def report(self) -> list[str]:
        return [*self.dsh, "report", "--hook", "claude"]

    def stop(self) -> None:
        subprocess.run([*self.dsh, "stop", self.session], env=self.env, capture_output=True, timeout=30)


def whole_process(runs: int, python: str) -> None:
    """`dsh report --hook claude` into a live detached session's pane, against `python -c pass`."""
    live = LivePane(python)
    payload = json.dumps({"session_id": "x", "hook_event_name": "UserPromptSubmit", "prompt": "bench"}).encode()
    report, reference = [], []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([python, "-c", "pass"], input=payload, env=live.hook_env, check=True)
        reference.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        subprocess.run(live.report(), input=payload, env=live.hook_env, check=True)
        report.append((time.perf_counter() - start) * 1000)
    seen = [p.get("agent_state") for s in live.listed() for t in s["tabs"] for p in t["panes"]]
    live.stop()
    show("python -c pass (reference)", reference)
    show("dsh report --hook claude, whole process", report, reference)
    print(f"  the pane's state after it: {seen[0]['state'] if seen and seen[0] else None}")


def end_to_end(runs: int, python: str) -> None:
    """`dsh report --hook claude` started -> the pane's header on an attached client's screen shows the
    new state (a PTY read into pyte), alternating working and needs-you; beside `python -c pass`."""
    import ptyprocess

    from bench.pty_screen import Screen

    live = LivePane(python)
    pane = live.pane
    client = ptyprocess.PtyProcess.spawn([*live.dsh, "attach", live.session], env=live.env, dimensions=(30, 120))
    screen = Screen(client, 30, 120)

    def header(text: str) -> str:
        return next((line for line in text.splitlines() if f" {pane} " in line), "")

    def wait(label: str, limit: float = 10.0) -> None:
        screen.wait(lambda text: label in header(text), f"the header saying {label!r}", limit)

    wait(pane)
    events = (("UserPromptSubmit", "working"), ("PermissionRequest", "needs you"))
    drawn, reference = [], []
    for i in range(runs):
        event, label = events[i % 2]
        payload = json.dumps(
            {"session_id": "x", "hook_event_name": event, "prompt": f"p{i}", "tool_name": "Bash",
             "tool_input": {"command": f"c{i}"}}
        ).encode()  # fmt: skip
        start = time.perf_counter()
        subprocess.run([python, "-c", "pass"], input=payload, env=live.hook_env, check=True)
        reference.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        subprocess.Popen(live.report(), stdin=subprocess.PIPE, env=live.hook_env).communicate(payload)
        wait(label)
        drawn.append((time.perf_counter() - start) * 1000)
    client.write(b"\x02d")
    client.wait()
    live.stop()
    show("python -c pass (reference)", reference)
    show("report started -> state on the attached screen", drawn, reference)


def host_side(runs: int) -> None:
    """A hook's event into the session's attention and the pane header drawn with its glyph."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    os.environ.setdefault("DSH_HOME", tempfile.mkdtemp(prefix="dsh-bench-attention-"))
    os.environ["SHELL"] = "/bin/sh"
    from dsh.attention.hooks import event_for
    from dsh.config import load_config
    from dsh.persist.records import AgentInfo
    from dsh.session.session import Session
    from dsh.store.store import Store
    from dsh.ui import chrome
    from dsh.ui.app import DshApp

    async def main() -> None:
        config = load_config()
        store = Store(config)
        cwd = tempfile.mkdtemp()
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
            session = Session(config=config, store=store, log=store.create_session(cwd), cwd=cwd)
            session.start()
            view = DshApp(session)
            task = asyncio.ensure_future(view.run_async())
            await asyncio.sleep(0.5)
            pane = session.active_pane
            pane.agent = AgentInfo(kind="claude", session_id=None, resume_argv=None)
            glyph, reference = [], []
            for i in range(runs * 10):
                state = ("UserPromptSubmit", "PermissionRequest")[i % 2]
                payload = {
                    "hook_event_name": state,
                    "prompt": f"p{i}",
                    "tool_name": "Bash",
                    "tool_input": {"command": f"c{i}"},
                }
                start = time.perf_counter()
                chrome.pane_header(view, pane.id)()
                reference.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                session.attention.hook(pane.id, event_for("claude", payload))
                chrome.pane_header(view, pane.id)()
                chrome.tabbar_fragments(view)
                chrome.status_fragments(view)
                glyph.append((time.perf_counter() - start) * 1000)
            show("a pane header drawn (reference)", reference)
            show("hook event -> state -> header, tab bar, status", glyph, reference)
            session.quit()
            await task
            await session.reap_panes(0.5)

    asyncio.run(main())


def agents_list(runs: int) -> None:
    """/agents over 50 sessions x 4 agent panes: 50 hosts' answers read, the list made and drawn."""
    from dsh.attention.agents_list import agents_model
    from dsh.session.machine_agents import rows_of

    answers = []
    for s in range(50):
        agents = [
            {
                "pane": f"p{p}",
                "state": ("blocked", "done", "working", "idle")[(s + p) % 4],
                "since": time.time() - s * 60,
                "message": f"allow Bash: make test-{s}-{p} " + "x" * 80,
                "kind": "claude",
                "title": f"claude {p}",
                "session_title": f"session {s}",
            }
            for p in range(4)
        ]
        answers.append(
            json.dumps({"ok": True, "session": f"s{s:03d}", "cwd": f"/home/u/src/project-{s}", "agents": agents})
        )
    made, reference = [], []
    for _ in range(runs):
        start = time.perf_counter()
        for text in answers:
            json.loads(text)
        reference.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        rows = [row for text in answers for row in rows_of(json.loads(text))]
        model = agents_model(rows, here="s000", now=time.time())
        lines = [f"{line.glyph} {line.text}" for line in model.lines]
        made.append((time.perf_counter() - start) * 1000)
    assert len(lines) == 200
    show("50 answers' JSON parsed (reference)", reference)
    show("/agents: 200 rows checked, sorted, lines made", made, reference)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument(
        "--python", default=sys.executable, help="the interpreter whose dsh is measured (a regular install's)"
    )
    args = parser.parse_args()
    print("load average " + " ".join(f"{x:.1f}" for x in os.getloadavg()) + f", {os.cpu_count()} cores")
    sys.path.insert(0, str(ROOT))
    print(f"dsh measured: {args.python} -m dsh")
    whole_process(args.runs, args.python)
    end_to_end(args.runs, args.python)
    host_side(args.runs)
    agents_list(args.runs)
    print(f"load average after {os.getloadavg()[0]:.1f}")
