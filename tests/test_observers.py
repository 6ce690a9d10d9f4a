"""Several clients' views of one session: every call of the observer protocol reaches each of them."""

from __future__ import annotations

import inspect

from dsh.session.observer import Observers, SessionObserver


class Recorder:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> object:
        return lambda *args: self.calls.append(name)


def test_every_observer_call_reaches_every_view() -> None:
    names = [name for name, _ in inspect.getmembers(SessionObserver, inspect.isfunction) if name.startswith("on_")]
    first, second = Recorder(), Recorder()
    both = Observers([first, second])  # type: ignore[list-item]  # recorders stand in for views
    for name in names:
        arity = len(inspect.signature(getattr(SessionObserver, name)).parameters) - 1
        getattr(both, name)(*[""] * arity)
    assert first.calls == names and second.calls == names
