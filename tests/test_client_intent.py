"""The command line read into an Intent, and the Target each intent names (no host, no terminal)."""

from __future__ import annotations

import pytest

from dsh.cli import build_parser, quick_args
from dsh.cli.run import intent_from_args
from dsh.client.intent import Action, Intent
from dsh.client.session_choice import ClientError, choose_target


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ([], Intent(Action.START)),
        (["--resume"], Intent(Action.START, open_picker=True)),
        (["--resume=abc"], Intent(Action.RESUME, "abc")),
        (["--continue"], Intent(Action.CONTINUE)),
        (["--open-agent", "codex:xyz"], Intent(Action.OPEN_AGENT, agent="codex:xyz")),
        (["attach"], Intent(Action.ATTACH)),
        (["attach", "s1"], Intent(Action.ATTACH, "s1")),
        (
            ["-o", "ui.prefix=c-a", "attach", "s1", "-o", "ui.mouse=false"],
            Intent(Action.ATTACH, "s1", options=["ui.prefix=c-a", "ui.mouse=false"]),
        ),
    ],
)
def test_the_command_line_becomes_an_intent(words: list[str], expected: Intent) -> None:
    assert intent_from_args(build_parser().parse_args(words)) == expected
    quick = quick_args(words)
    if quick is not None:  # the fast path reads the same
        assert intent_from_args(quick) == expected


def test_attach_never_restores_and_a_new_session_opens_the_picker_if_asked(tmp_path) -> None:
    # An id with no host: the target names it (attaching says it is not running), never restored.
    attach = choose_target(Intent(Action.ATTACH, "20261201T101010Z-abcdef"), str(tmp_path))
    assert (attach.session_id, attach.restore) == ("20261201T101010Z-abcdef", False)
    with pytest.raises(ClientError, match="no session 20261201T101010Z-abcdef"):
        choose_target(Intent(Action.RESUME, "20261201T101010Z-abcdef"), str(tmp_path))
    new = choose_target(Intent(Action.START, open_picker=True), str(tmp_path))
    assert (new.session_id, new.cwd, new.open_picker) == (None, str(tmp_path), True)


@pytest.mark.parametrize("action", [Action.ATTACH, Action.RESUME])
def test_a_malformed_id_is_refused_with_status_2(action: Action, tmp_path) -> None:
    with pytest.raises(ClientError) as raised:
        choose_target(Intent(action, "../etc"), str(tmp_path))
    assert raised.value.code == 2
