"""A session named on the command line (`attach`, `stop`, `--resume`) as a person types it: its id, a
unique start of the id or of its random part, or its title (slugged) — through `dsh.store.targets`.

An exact id whose host listens (or, for `--resume`, whose log exists) is taken without asking anyone,
so the common case costs what it did. Otherwise the running hosts are asked for their ids and titles
(the `query` handshake), then, where a stopped session will do, the index.
"""

from __future__ import annotations

TYPE_CHECKING = False  # a client start-up path: importing typing costs it 5-10 ms
if TYPE_CHECKING:
    from collections.abc import Callable

    from dsh.store.store import Store
    from dsh.store.targets import Candidate


class NamingError(Exception):
    """The word names no session, or several; the message is for the user, `code` the exit status."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def _valid_id(word: str) -> str | None:
    from dsh.store.ids import InvalidSessionId, validate_session_id

    try:
        return validate_session_id(word)
    except InvalidSessionId:
        return None


def _listening(session_id: str) -> bool:
    from dsh.rundir import RunDirError, socket_path

    try:
        return socket_path(session_id).exists()
    except RunDirError:
        return False


def live_candidates() -> list[Candidate]:
    """Every running host's session, with its title."""
    from dsh.client.live import running_hosts
    from dsh.store.targets import Candidate

    return [Candidate(str(h["session"]), str(h.get("title") or "")) for h in running_hosts()]


def _resolve(word: str, candidates: list[Candidate]) -> str | None:
    """The id `word` names among `candidates`, None when none does; NamingError when several might."""
    from dsh.store.targets import TargetError, resolve

    try:
        return resolve(word, candidates).id
    except TargetError as exc:
        if exc.candidates:
            raise NamingError(str(exc), 2) from None
        return None


def _unknown(word: str) -> NamingError:
    from dsh.store.ids import InvalidSessionId, validate_session_id
    from dsh.text import sanitize

    try:
        validate_session_id(word)
    except InvalidSessionId as exc:
        # Not an id, and no session is called that: say both (the word is typed input: escaped).
        return NamingError(f"no session named {sanitize(word, max_len=60)!r} ({exc})", 2)
    return NamingError(f"no session {word} (dsh sessions --all lists every session)")


def live_session(word: str, stored: Callable[[], list[Candidate]] | None = None) -> str:
    """The session `word` names among the running ones (`attach`, `stop`); with `stored`, a session
    that is not running answers too (its id is returned, for the caller to say it is not running)."""
    exact = _valid_id(word)
    if exact is not None and _listening(exact):
        return exact
    found = _resolve(word, live_candidates())
    if found is not None:
        return found
    if stored is not None:
        found = _resolve(word, stored())
        if found is not None:
            return found
    if exact is not None:
        return exact  # the caller's own message says it is not running
    raise _unknown(word)


def any_session(word: str, stored: Callable[[], list[Candidate]], log_exists: Callable[[str], bool]) -> str:
    """The session `word` names among every one there is (`--resume`): a running host's, then the
    index's. An exact id is taken as it is when its host listens or its log is found."""
    exact = _valid_id(word)
    if exact is not None and (_listening(exact) or log_exists(exact)):
        return exact
    found = _resolve(word, [*live_candidates(), *stored()])
    if found is not None:
        return found
    raise _unknown(word)


def index_candidates(store: Store) -> list[Candidate]:
    """Every session the index lists (archived ones too: a name typed on purpose may be one)."""
    from dsh.store.targets import Candidate

    rows = store.summaries(include_archived=True)
    return [Candidate(row.id, row.title or "") for row in rows]
