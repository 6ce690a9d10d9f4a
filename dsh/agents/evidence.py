"""Which conversation a running agent holds: evidence tied to its process first, its store's files after.

The order of trust:
1. what the agent records for its own process (Claude Code's `sessions/<pid>.json`, which follows
   `/clear`) and the transcript files the process itself holds open (not a server's it shares with
   other agents: Codex's app-server daemon holds every loaded thread's rollout);
2. the id dsh gave it at launch, the one its command line names (`--resume ID`), or the one learned
   before; for a CLI that begins a new session in the same process with nothing on disk naming the
   process (Codex's and opencode's `/new`), the later session in its folder that a prompt sent from
   this pane began (see `moved_on`), and for Codex also an older thread its `/resume` went back to,
   the one this pane's latest prompt was appended to (see CodexAdapter.follow_session_id);
3. only when none of these exists, a scan of its store for a session begun after the pane started in
   the same folder, never one another pane holds, one a prompt from this pane began first (see
   `choose_candidate`).
The store is read where the process itself keeps it (its own environment, `/proc/PID/environ`), and a
resume runs the program that ran (the absolute path of its argv[0], looked up on its own PATH).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dsh.agents.base import NOTHING_SENT, AgentAdapter, Sent, program_index
from dsh.agents.lookups import RecheckReads
from dsh.agents.process import ProcessFacts, resolve_program

# Programs that run an agent CLI's script: `node …/codex`, `python …`.
INTERPRETERS = frozenset({"node", "nodejs", "bun", "deno", "python", "python3"})


@dataclass(frozen=True)
class Learned:
    """What is known now about one running agent."""

    session_id: str | None
    cwd: str  # the directory the agent works in
    exact: bool  # the id is tied to this process, not guessed from the store
    program: str | None = None
    env: dict[str, str] = field(default_factory=dict)  # the store override a resume needs
    transcript: str | None = None
    conversation: bool | None = None


def agent_env(facts: Sequence[ProcessFacts], pane_env: Mapping[str, str]) -> Mapping[str, str]:
    """The environment the agent runs with: its own when /proc shows it, else the pane's."""
    for found in facts:
        if found.env:
            return found.env
    return pane_env


def program_of(
    adapter: AgentAdapter, argv: Sequence[str], *, path: str | None, cwd: str | None, exe: str | None = None
) -> str | None:
    """The absolute path of the CLI an argv ran: argv[0] on the process's own PATH, the script an
    interpreter ran (`node /x/bin/codex`), else the kernel's executable when it is named like the CLI."""
    if argv and os.path.basename(argv[0]) in INTERPRETERS and len(argv) > 1 and adapter.recognize(argv[1:]):
        argv = argv[1:]
    i = program_index(argv)
    if i is not None:
        found = resolve_program(argv[i], path=path, cwd=cwd)
        if found is not None and adapter.valid_program(found):
            return found
    return exe if exe is not None and adapter.valid_program(exe) else None


def learn_session(
    adapter: AgentAdapter,
    *,
    facts: Sequence[ProcessFacts],
    argv: Sequence[str],
    pane_env: Mapping[str, str],
    pane_cwd: str,
    started_at: float,
    known_id: str | None = None,
    known_transcript: str | None = None,
    conversation_seen: bool = False,
    taken: Collection[str] = (),
    rivals: Sequence[float] = (),
    sent: Sent = NOTHING_SENT,
    scan: bool = True,
) -> Learned:
    """Decide which session the agent runs (see the module docstring). Blocking: run off the loop.

    `facts` are the agent's process and the processes it started (a launcher's child runs the CLI);
    `taken` the ids other panes hold; `rivals` the start times of other panes running this agent in
    the same folder; `sent` when lines were sent to this pane and to those; `scan` allows the store scan
    when nothing better is known.
    """
    env = agent_env(facts, pane_env)
    main = facts[0] if facts else None
    cwd = adapter.work_dir(argv, (main.cwd if main is not None and main.cwd else None) or pane_cwd)
    session_id: str | None = None
    exact = False
    for found in facts:
        recorded = adapter.id_from_process(found.pid, found.start_ticks, env)
        if recorded is not None:
            session_id, recorded_cwd = recorded
            cwd = recorded_cwd or cwd
            exact = True
            break
    if session_id is None:
        for found in facts:
            if not adapter.own_files(found):
                continue
            named = [(sid, path) for path in found.open_files if (sid := adapter.id_from_file(path, env))]
            if named:
                session_id, known_transcript = adapter.current_of(named)
                exact = True
                break
    if session_id is None and known_id is not None and adapter.valid_session_id(known_id):
        session_id = adapter.follow_session_id(known_id, cwd, started_at, env, taken=taken, sent=sent) or known_id
    if session_id is None and scan:
        session_id = adapter.find_session_id(cwd, started_at, env, taken=taken, rivals=rivals, sent=sent)
    program = None
    if main is not None:
        program = program_of(adapter, main.argv or argv, path=env.get("PATH"), cwd=main.cwd, exe=main.exe)
    if program is None:
        program = program_of(adapter, argv, path=env.get("PATH"), cwd=pane_cwd)
    transcript, conversation = None, None
    if session_id is not None:
        transcript, conversation = conversation_state(
            adapter,
            session_id,
            cwd,
            env,
            known=known_transcript if session_id == known_id else None,
            seen=conversation_seen and session_id == known_id,
        )
    return Learned(session_id, cwd, exact, program, adapter.store_env(env), transcript, conversation)


def conversation_state(
    adapter: AgentAdapter,
    session_id: str,
    cwd: str | None,
    env: Mapping[str, str],
    *,
    known: str | None = None,
    seen: bool = False,
    looked: RecheckReads | None = None,
) -> tuple[str | None, bool | None]:
    """(transcript path, whether it holds a conversation) for a session; (None, None) when the agent's
    store cannot be checked here. A session with no transcript at all has no conversation (False).
    `looked` is told what was read (see lookups)."""
    if looked is None:
        path = Path(known) if known and os.path.isfile(known) else adapter.transcript(session_id, cwd, env)
    else:
        path = Path(known) if known and looked.file(known) is not None else None
        if path is None:
            looked.store(adapter, env)
            path = adapter.transcript(session_id, cwd, env)
            if path is not None:
                looked.file(str(path))
    if path is None:
        return None, (False if adapter.keeps_transcripts else None)
    if seen:
        return str(path), True  # a transcript never loses its conversation: no need to read it again
    return str(path), adapter.has_conversation(path)
