"""Input never wedges: random, malformed and truncated sequences into the view's own input (LinkInput, as a
client's bytes reach it), each followed by a key that must still be handled."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from prompt_toolkit.application import create_app_session
from prompt_toolkit.output import DummyOutput
from test_app_harness import Harness, plain_shell  # noqa: F401  (autouse: panes run /bin/sh)

from dsh.config import load_config
from dsh.session.session import Session
from dsh.store.store import Store
from dsh.ui.app import DshApp
from dsh.ui.link_input import PASTE_GAP_SECONDS, LinkInput
from dsh.ui.view_options import ViewOptions

SENTINEL = "Q"  # never produced by a case below, so finding it means the key after the case was handled


class LinkHarness(Harness):
    """The app harness, fed through a LinkInput (the remote view's input) instead of a pipe."""

    link: LinkInput

    def send(self, text: str) -> None:
        self.link.feed(text.encode("utf-8", "surrogateescape"))

    def flush(self) -> None:
        """What the application does ttimeoutlen after the last byte: a pending Escape is a key."""
        processor = self.app.application.key_processor
        processor.feed_multiple(self.link.flush_keys())
        processor.process_keys()


@asynccontextmanager
async def linked_app(cwd: Path) -> AsyncIterator[LinkHarness]:
    config = load_config()
    store = Store(config)
    log = store.create_session(str(cwd))
    link = LinkInput()
    with create_app_session(input=link, output=DummyOutput()):
        session = Session(config=config, store=store, log=log, cwd=str(cwd))
        session.start()
        app = DshApp(session, ViewOptions())
        task = asyncio.ensure_future(app.run_async())
        h = LinkHarness(app, None, task)  # type: ignore[arg-type]
        h.link = link
        try:
            await h.wait(lambda: app.application.is_running, "the app to run")
            await h.wait(lambda: app.active_pane is not None and app.active_pane.running, "the first pane")
            yield h
        finally:
            if not task.done():
                session.quit()
            await asyncio.wait_for(task, 15)
            await session.reap_panes(0.5)


def _params(rng: random.Random) -> str:
    parts = [rng.choice(["", str(rng.randint(0, 9)), str(rng.randint(0, 99999)), "-1", "x"]) for _ in range(4)]
    joined = rng.choice([";", ":"]).join(parts[: rng.randint(0, 4)])
    return rng.choice(["", "", "<", "?", ">", "="]) + joined


def cases(seed: int = 23, count: int = 200) -> list[tuple[str, bool]]:
    """(bytes as text, whether it is a paste left open) for `count` hostile inputs."""
    rng = random.Random(seed)
    out: list[tuple[str, bool]] = [
        ("\x1b[<0;12;M", False),  # the report that wedged a client: an SGR mouse press with no row
        ("\x1b[<;;M", False),
        ("\x1b[<99999999999999999999;1;1M", False),
        ("\x1b[<0;-5;3m", False),
        ("\x1b[M", False),
        ("\x1b[M\xff\xff", False),
        ("\x1b[200~never ended", True),
        ("\x1b[201~", False),
        ("\x1bO", False),
        ("\x1b[", False),
        ("\x1b", False),
    ]
    while len(out) < count:
        kind = rng.choice(["csi", "csi", "ss3", "sgr", "x10", "paste", "osc", "bytes"])
        paste_open = False
        if kind == "csi":
            seq = "\x1b[" + _params(rng) + rng.choice(["", " ", "$", "'"]) + chr(rng.randint(0x40, 0x7E))
        elif kind == "ss3":
            seq = "\x1bO" + chr(rng.randint(0x20, 0x7E))
        elif kind == "sgr":
            seq = "\x1b[<" + _params(rng).lstrip("<?>=") + rng.choice(["M", "m", ""])
        elif kind == "x10":
            seq = "\x1b[M" + "".join(chr(rng.randint(32, 255)) for _ in range(rng.randint(0, 3)))
        elif kind == "paste":
            body = "".join(rng.choice("abc \n\t;[") for _ in range(rng.randint(0, 30)))
            paste_open = rng.random() < 0.2
            seq = "\x1b[200~" + body + ("" if paste_open else "\x1b[201~")
        elif kind == "osc":
            seq = (
                "\x1b]"
                + rng.choice(["11;rgb:ffff/ffff/ffff", "52;c;", "10;?", ""])
                + rng.choice(["\x07", "\x1b\\", ""])
            )
        else:
            seq = "".join(
                chr(rng.choice([rng.randint(0x20, 0x7E), 0x1B, 0x7F, 0x09, rng.randint(0xA0, 0x2FF)]))
                for _ in range(rng.randint(1, 8))
            )
            seq += rng.choice(["", "\udcff", "\udc80"])  # bytes that are not UTF-8
        if not paste_open and rng.random() < 0.35 and len(seq) > 1:
            seq = seq[: rng.randint(1, len(seq) - 1)]  # truncated
            paste_open = seq.startswith("\x1b[200~")
        seq = seq.replace(SENTINEL, "q")
        out.append((seq, paste_open))
    return out


def test_hostile_input_never_wedges_the_keyboard(tmp_path: Path) -> None:
    hostile = cases()
    assert len(hostile) == 200

    async def body() -> None:
        async with linked_app(tmp_path) as h:
            app = h.app
            pane = h.pane
            sent = h.record(pane)
            for i, (seq, paste_open) in enumerate(hostile):
                # Each case starts on an empty prompt, whatever the one before did.
                if app.mode in ("help", "picker"):
                    app.close_overlay()
                elif app.mode == "copy":
                    app.leave_copy_mode()
                if app.line.pending_action is not None:
                    app.end_ask()
                app.prefix_pending = False
                app.modes.confirming.clear()
                if h.session.tabs.active_pane != pane.id:
                    h.session.focus_pane(pane.id)
                app.enter_prompt()
                app.prompt_buffer.reset()
                sent.clear()
                h.send(seq)
                h.flush()
                if paste_open:
                    await asyncio.sleep(PASTE_GAP_SECONDS + 0.05)
                h.send(SENTINEL)
                await h.wait(
                    lambda: SENTINEL in app.prompt_buffer.text or SENTINEL.encode() in b"".join(sent),
                    f"the key after case {i} ({seq!r}) to be handled",
                )
            assert not h.task.done()

    from test_app_harness import run

    run(body)
