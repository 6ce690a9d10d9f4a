"""Opening /resume fast: this workspace's rows and a count at once, every workspace's rows off the loop."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from typing import Protocol

from dsh.resume.candidates import Candidate, gc_paused
from dsh.resume.picker import AllRows, PickerModel, prepare_all
from dsh.store.index import SessionIndex, release
from dsh.store.workspace import workspace_partition


class _IndexLocation(Protocol):
    db_path: os.PathLike[str] | str
    root: os.PathLike[str] | str


def workspace_cwds(cwd: str) -> list[str]:
    """The recorded cwds that belong to `cwd`'s workspace besides its partition (see `in_workspace`)."""
    here = os.path.normpath(cwd) if cwd else cwd
    return [here, here + "/"] if here else []


def open_picker(
    index: SessionIndex, *, cwd: str, current_session_id: str | None, own_pid: int, now: float
) -> PickerModel:
    """The picker with this workspace's rows and the count of all rows: two indexed queries, no scan.

    Runs on the loop with the app's own index connection. Every workspace's rows follow through
    `load_rest` (on a worker thread) and `PickerModel.add_all` / `PickerView.add_all` (on the loop).
    """
    workspace = workspace_partition(cwd)
    summaries = index.workspace_summaries(workspace, workspace_cwds(cwd))
    total = index.count()
    candidates = Candidate.from_summaries(summaries, current_session_id=current_session_id, own_pid=own_pid)
    # The count and the rows are two reads: a refresh in between must not make the count smaller.
    return PickerModel(
        candidates, current_cwd=cwd, now=now, current_workspace=workspace, all_count=max(total, len(candidates))
    )


def load_rest(
    index: _IndexLocation, *, cwd: str, current_session_id: str | None, own_pid: int
) -> AllRows:
    """Every workspace's rows, sorted, split and indexed: safe on a worker thread.

    Opens its own connection to the index (SQLite connections stay in the thread that made them) and
    never raises for a broken index: the answer then carries the reason in `error`.
    """
    with gc_paused():
        own = SessionIndex(index.db_path, index.root, progress=io.StringIO())  # type: ignore[arg-type]
        try:
            summaries = own.summaries(cwd=None)
            problems = own.warnings()
        except Exception as exc:  # the listing must say why, not take the app down from a worker thread
            summaries, problems = [], [f"session index: {exc}"]
        finally:
            own.close()
        candidates = Candidate.from_summaries(
            summaries, current_session_id=current_session_id, own_pid=own_pid
        )
        release(summaries)
        error = problems[-1] if problems and not candidates else None
        return prepare_all(candidates, current_cwd=cwd, current_workspace=workspace_partition(cwd), error=error)


def load_rest_and_refresh(
    index: _IndexLocation,
    *,
    cwd: str,
    current_session_id: str | None,
    own_pid: int,
    deliver: Callable[[AllRows], None],
) -> list[str]:
    """The worker thread's whole job after an open: every row now, then the index brought up to date
    with the logs, then every row again if that changed anything. Returns the refresh's warnings.

    `deliver` is called on this thread with each AllRows; it must hand them to the loop itself
    (`loop.call_soon_threadsafe(view.add_all, rows)`).
    """
    deliver(load_rest(index, cwd=cwd, current_session_id=current_session_id, own_pid=own_pid))
    own = SessionIndex(index.db_path, index.root, progress=io.StringIO())  # type: ignore[arg-type]
    try:
        warnings = own.refresh()
        changed = own.changed
    except Exception as exc:  # a broken index must not take the app down from a worker thread
        return [f"session index: {exc}"]
    finally:
        own.close()
    if changed:
        deliver(load_rest(index, cwd=cwd, current_session_id=current_session_id, own_pid=own_pid))
    return warnings
