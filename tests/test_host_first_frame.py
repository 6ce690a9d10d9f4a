"""What a new session's host leaves until after its first frame (start-up), and that it is there when
needed: the agents' code, prompt_toolkit's default key bindings and package __init__, asyncio's TLS."""

from __future__ import annotations

import json
import subprocess
import sys

# A new session, its shell pane and its view on pipe input, in a fresh interpreter, as a host runs them
# (the view imported by dsh.ui.host_import). At the first frame it notes the agent modules loaded, the
# dataclasses made (all of them, from the first import), whether the default key bindings are built and
# which of the modules a host leaves out are loaded;
# `typed` is sent before that frame, and the prompt's text read 0.3 s after it. (The session's ticks,
# which look for agents, are stopped: they come after the first frame.)
SCRIPT = """
import dataclasses, json, os, sys, tempfile
made = []
process_class = dataclasses._process_class
def note(cls, *args, **kwargs):
    made.append(cls.__module__ + '.' + cls.__qualname__)
    return process_class(cls, *args, **kwargs)
dataclasses._process_class = note
os.environ.update(DSH_HOME=tempfile.mkdtemp(), SHELL='/bin/sh')
from dsh.ui import host_import
host_import.import_view()
import asyncio
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from dsh.config import load_config
from dsh.session.session import Session
from dsh.store.store import Store
from dsh.ui import view_application
from dsh.ui.app import DshApp
from dsh.ui.view_options import ViewOptions

Session._tick = lambda self: None
report = {}
views = []
from dsh.persist import scheduler
writes = []
write_pending = scheduler.SnapshotScheduler._write_pending
def note_write(self):
    writes.append(1)
    return write_pending(self)
scheduler.SnapshotScheduler._write_pending = note_write

def at_first_frame(_app):
    if 'agents' not in report:
        report['agents'] = sorted(m for m in sys.modules if m.startswith('dsh.agents.') or m == 'uuid')
        report['bindings_built'] = bool(view_application._shared_defaults)
        report['own_bindings_built'] = views[0]._bindings is not None
        report['dataclasses'] = made
        report['snapshot_writes'] = len(writes)
        report['index_at_first_frame'] = sorted(m for m in ('sqlite3', 'dsh.store.index') if m in sys.modules)
        keyword = _app._merged_style.get_attrs_for_style_str('class:pygments.keyword')
        report['pygments_keyword_bold'] = bool(keyword.bold)
        unused = ('importlib.resources', 'zipfile', 'tomli_w')
        report['unused'] = sorted(m for m in unused if m in sys.modules)
        report['left_out'] = sorted(m for m in ('ssl', 'prompt_toolkit.shortcuts') if m in sys.modules)

async def main():
    config = load_config(); store = Store(config); cwd = tempfile.mkdtemp()
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        session = Session(config=config, store=store, log=store.create_session(cwd), cwd=cwd)
        session.start()
        view = DshApp(session, ViewOptions())
        views.append(view)
        view.application.after_render += at_first_frame
        pipe.send_text(sys.argv[1])
        task = asyncio.ensure_future(view.run_async())
        while 'agents' not in report:
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.3)
        report['bindings_built_after'] = bool(view_application._shared_defaults)
        report['own_bindings_built_after'] = view._bindings is not None
        report['prompt'] = view.prompt_buffer.text
        report['bare_after'] = host_import.bare_packages()
        session.scheduler.release()  # what the first tick does (ticks are stopped here)
        await asyncio.sleep(0.1)
        report['snapshot_writes_after'] = len(writes)
        from dsh.persist.snapshot import load_snapshot
        report['snapshot_on_disk'] = load_snapshot(session.log.id) is not None
        from dsh.store.index import SessionIndex
        for _ in range(100):  # the refresh runs on the session's worker thread
            listed = [row.id for row in SessionIndex(session.store.index.db_path, store.root).summaries()]
            if listed:
                break
            await asyncio.sleep(0.05)
        report['index_lists_the_session'] = listed == [session.log.id]
        from prompt_toolkit import PromptSession
        report['prompt_session'] = PromptSession.__module__
        report['pane_running'] = session.active_pane is not None and session.active_pane.running
        session.quit(); await task; await session.reap_panes(0.5)

asyncio.run(main())
print(json.dumps(report))
"""


def first_frame(typed: str = "") -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", SCRIPT, typed], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_new_sessions_first_frame_loads_no_agent_adapter() -> None:
    # A cold start's host imported dsh.agents (15-20 ms, with uuid and platform) for a first pane that
    # runs a shell.
    report = first_frame()
    assert report["pane_running"] is True
    assert report["agents"] == ["dsh.agents.programs"]


def test_the_default_key_bindings_are_built_after_the_first_frame_and_serve_the_first_keys() -> None:
    # Building them took 12 ms of a cold start's first frame; keys typed before it still reach the prompt
    # through them (self-insert is one of prompt_toolkit's defaults).
    report = first_frame("echo hi")
    assert report["bindings_built"] is False
    assert report["bindings_built_after"] is True
    assert report["prompt"] == "echo hi"


def test_the_view_s_own_key_bindings_are_built_after_the_first_frame_or_for_a_key_before_it() -> None:
    # Every mode's bindings, merged: 8 M instructions of the way to the first frame.
    idle = first_frame()
    assert idle["own_bindings_built"] is False
    assert idle["own_bindings_built_after"] is True
    # A key typed before the first frame builds them: C-] (the escape key, dsh's own binding) is typed
    # first, so what follows goes to the pane, not the prompt.
    typed = first_frame("\x1decho hi")
    assert typed["prompt"] == ""
    assert typed["own_bindings_built_after"] is True


def test_a_host_s_first_frame_comes_without_ssl_and_prompt_toolkit_s_shortcuts_which_follow_it() -> None:
    # asyncio's ssl import (7-14 ms) serves nothing in a host; prompt_toolkit's package __init__ imports its
    # shortcuts (PromptSession, dialogs, widgets: 25 M instructions), which dsh does not use, and is run
    # just after the first frame, so that the package is then as any import makes it.
    report = first_frame()
    assert report["left_out"] == []
    assert report["bare_after"] == []
    assert report["prompt_session"] == "prompt_toolkit.shortcuts.prompt"


def test_a_new_session_s_snapshot_is_written_once_after_the_first_frame_not_three_times_before_it() -> None:
    # Its tab, its pane and its start() each asked for a write at once: three snapshots built (and
    # written by a thread contending for the interpreter) before the first frame.
    report = first_frame()
    assert report["snapshot_writes"] == 0
    assert report["snapshot_writes_after"] == 1
    assert report["snapshot_on_disk"] is True


def test_the_index_for_resume_is_refreshed_after_the_first_frame_not_before_it() -> None:
    # Its import (sqlite3 and the listing's code) and its refresh on the worker thread, contending for the
    # interpreter, were 19 M instructions of the way to the first frame.
    report = first_frame()
    assert report["index_at_first_frame"] == []
    assert report["index_lists_the_session"] is True


def test_the_first_frame_imports_no_module_it_has_no_use_for() -> None:
    # The base config and the shell integration are read from dsh.share's folder: importlib.resources
    # (with zipfile) was 15 M instructions of the way to the first frame. tomli_w (3 M) only writes the
    # config, for `dsh config set`.
    assert first_frame()["unused"] == []


def test_the_view_s_style_leaves_out_prompt_toolkit_s_pygments_defaults() -> None:
    # No lexer draws in dsh; parsing and merging those 60-odd rules was part of the first frame.
    assert first_frame()["pygments_keyword_bold"] is False


def test_the_way_to_the_first_frame_makes_no_dataclass_outside_the_records() -> None:
    # Making a dataclass generates and compiles its methods: about 1 ms a class, 35 of them on this path
    # before (dsh.values.Value is the hand-written way; the view's five went the same way later). The
    # snapshot's records stay dataclasses (their fields are read with dataclasses.fields, AgentInfo copied
    # with replace).
    made = first_frame()["dataclasses"]
    assert isinstance(made, list) and made
    kept = ("dsh.persist.records.",)
    assert [name for name in made if name.startswith("dsh.") and not name.startswith(kept)] == []


def test_the_spawner_s_warm_up_does_ahead_what_a_host_leaves_until_after_its_first_frame() -> None:
    # A host forked from the spawner should not pay for them on its first tick or its first key.
    code = (
        "import sys\nfrom dsh.ui import remote, view_application\nremote.warm_up()\n"
        "print(sorted(m for m in ('dsh.session.agents', 'dsh.agents.registry', 'dsh.agents.resumable') "
        "if m in sys.modules), bool(view_application._shared_defaults))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['dsh.agents.registry', 'dsh.agents.resumable', 'dsh.session.agents'] True"
