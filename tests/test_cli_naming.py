"""A session named on the command line: the running hosts first, the index after, an exact id at once."""

from __future__ import annotations

import pytest

from dsh.client import naming
from dsh.store.targets import Candidate

LIVE = [
    {"session": "20261201T100000Z-aa11bb", "title": "release notes", "cwd": "/w"},
    {"session": "20261201T110000Z-aa22cc", "title": None, "cwd": "/w"},
]
STORED = [Candidate("20261130T090000Z-ff0011", "old work"), Candidate("20261201T100000Z-aa11bb", "release notes")]


@pytest.fixture(autouse=True)
def hosts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("dsh.client.live.running_hosts", lambda: LIVE)


def test_live_sessions_by_title_prefix_and_random_part() -> None:
    assert naming.live_session("release-notes") == "20261201T100000Z-aa11bb"
    assert naming.live_session("aa2") == "20261201T110000Z-aa22cc"
    with pytest.raises(naming.NamingError, match="could be any of 2 sessions") as caught:
        naming.live_session("aa")
    assert caught.value.code == 2 and "aa11bb" in str(caught.value) and "aa22cc" in str(caught.value)


def test_a_stopped_session_answers_only_where_it_may() -> None:
    with pytest.raises(naming.NamingError, match="no session named 'old work'"):
        naming.live_session("old work")
    assert naming.live_session("old-work", lambda: STORED) == "20261130T090000Z-ff0011"
    assert naming.any_session("old", lambda: STORED, lambda _id: False) == "20261130T090000Z-ff0011"
    # A well-formed id nobody knows is left to the caller, who says it is not running / not there.
    assert naming.live_session("nosuchsession") == "nosuchsession"
    with pytest.raises(naming.NamingError, match="no session nosuchsession") as caught:
        naming.any_session("nosuchsession", lambda: STORED, lambda _id: False)
    assert caught.value.code == 1


def test_an_exact_id_with_a_log_asks_nobody(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("dsh.client.live.running_hosts", lambda: pytest.fail("hosts asked"))

    def stored() -> list[Candidate]:
        raise AssertionError("index asked")

    assert naming.any_session("20261130T090000Z-ff0011", stored, lambda _id: True) == "20261130T090000Z-ff0011"
