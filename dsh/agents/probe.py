"""Looking at a running agent again and again: when, with what, and what changes in its AgentInfo."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from dsh.agents.base import NOTHING_SENT, AgentAdapter, Sent, same_dir
from dsh.agents.evidence import INTERPRETERS, Learned, learn_session
from dsh.agents.process import ProcessFacts, children, read_process
from dsh.persist.records import AgentInfo

# While the id is unknown, look again after 0.5, 1, 2, 4 … s, at most every 30 s: agents often write
# their store only after the first prompt. Once known, look every few seconds: the cheap checks only
# (the agent's own record of its process, whether its transcript holds a conversation yet, and for
# Codex and opencode their store's newest sessions), so a `/clear` or a `/new` that switches the id is
# followed. A line sent to the pane (an agent begins its session at a prompt) brings the next look
# forward to a moment after it, when the store has been written.
BACKOFF_FIRST = 0.5
BACKOFF_MAX = 30.0
RELEARN_SECONDS = 3.0
SENT_SETTLE = 0.5
# A launcher (npx, a node wrapper) runs the CLI as a child: look this far down, at this many processes.
_DESCENDANT_DEPTH = 2
_MAX_PROCESSES = 8


@dataclass
class AgentProbe:
    """When to look again at one pane's agent, and whether a look is under way."""

    next_try: float = 0.0
    tries: int = 0
    busy: bool = False
    looked_at: float = 0.0  # when the last look began

    def due(self, now: float, sent_at: float | None = None) -> bool:
        """Time for a look: its turn has come, or a line was sent (at `sent_at`) since the last look began.
        Times are the wall clock's (a line's, the agent's files'): a last look later than now means the
        clock was set back, and the look is due, not put off by as long as the clock went back."""
        if self.busy:
            return False
        if self.looked_at > now:
            return True
        return now >= self.next_try or (sent_at is not None and self.looked_at < sent_at <= now - SENT_SETTLE)

    def schedule(self, now: float, *, known: bool) -> None:
        self.looked_at = now
        self.tries += 1
        self.next_try = now + (RELEARN_SECONDS if known else min(BACKOFF_MAX, BACKOFF_FIRST * 2**self.tries))

    def learned(self, now: float) -> None:
        """An id was found: look again as for a known one, not after the backoff of the search for it."""
        self.next_try = min(self.next_try, now + RELEARN_SECONDS)


@dataclass(frozen=True)
class Neighbour:
    """Another pane's agent, as far as one pane's lookup cares: the id it holds, where, since when, and when
    lines were sent to it."""

    kind: str
    session_id: str | None
    cwd: str
    started_at: float
    sent: tuple[float, ...] = ()


@dataclass(frozen=True)
class ProbeRequest:
    """Everything one lookup needs, copied on the loop so the worker touches no live object."""

    adapter: AgentAdapter
    pid: int | None
    argv: list[str]
    env: dict[str, str]
    cwd: str
    started_at: float
    agent: AgentInfo
    taken: frozenset[str] = frozenset()
    rivals: tuple[float, ...] = ()
    sent: Sent = NOTHING_SENT


def make_request(
    adapter: AgentAdapter,
    *,
    agent: AgentInfo,
    pid: int | None,
    argv: Sequence[str],
    env: Mapping[str, str],
    cwd: str,
    started_at: float,
    others: Sequence[Neighbour],
    sent: Sequence[float] = (),
) -> ProbeRequest:
    """A lookup for one pane: ids the other panes hold are off limits, and other panes running this agent
    in the same folder bound which of the store's sessions can be this one's (by when they started, and
    by when lines were sent to them: `sent` are this pane's)."""
    here = agent.cwd or adapter.work_dir(argv, cwd)
    taken = frozenset(o.session_id for o in others if o.session_id)
    near = [o for o in others if o.kind == agent.kind and same_dir(o.cwd, here)]
    rivals = tuple(o.started_at for o in near)
    theirs = tuple(when for o in near for when in o.sent)
    return ProbeRequest(
        adapter, pid, list(argv), dict(env), cwd, started_at, agent, taken, rivals, Sent(tuple(sent), theirs)
    )


def process_facts(pid: int | None) -> list[ProcessFacts]:
    """The process and the processes it started (a launcher's children run the CLI), nearest first."""
    if pid is None:
        return []
    found: list[ProcessFacts] = []
    level = [pid]
    for _ in range(_DESCENDANT_DEPTH + 1):
        following: list[int] = []
        for one in level:
            facts = read_process(one)
            if facts is None:
                continue
            found.append(facts)
            if len(found) >= _MAX_PROCESSES:
                return found
            following.extend(children(one))
        level = following
    return found


def run_probe(request: ProbeRequest) -> Learned:
    """One lookup (blocking: /proc and the agent's store)."""
    facts = process_facts(request.pid)
    started = request.started_at
    if facts and facts[0].started_at is not None:
        started = min(started, facts[0].started_at)
    agent = request.agent
    return learn_session(
        request.adapter,
        facts=facts,
        argv=request.argv,
        pane_env=request.env,
        pane_cwd=request.cwd,
        started_at=started,
        known_id=agent.session_id,
        known_transcript=agent.transcript,
        conversation_seen=agent.conversation is True,
        taken=request.taken,
        rivals=request.rivals,
        sent=request.sent,
        scan=agent.session_id is None,
    )


def updated_agent(adapter: AgentAdapter, argv: Sequence[str], agent: AgentInfo, learned: Learned) -> AgentInfo | None:
    """The pane's AgentInfo after a lookup, or None when nothing changed."""
    session_id = learned.session_id or agent.session_id
    fresh = adapter.agent_info(
        argv,
        session_id,
        program=learned.program or agent.program,
        cwd=learned.cwd,
        env=learned.env,
        transcript=learned.transcript if learned.session_id else agent.transcript,
        conversation=learned.conversation if learned.session_id else agent.conversation,
    )
    if fresh.model is None and agent.model is not None:
        fresh = replace(fresh, model=agent.model)
    return None if fresh == agent else fresh


def agent_behind(argv: Sequence[str]) -> AgentAdapter | None:
    """The adapter of an agent CLI in a process's argv, also when an interpreter runs its script."""
    from dsh.agents.registry import adapter_for_argv

    adapter = adapter_for_argv(argv)
    if adapter is None and len(argv) > 1 and argv[0].rsplit("/", 1)[-1] in INTERPRETERS:
        adapter = adapter_for_argv(argv[1:])
    return adapter


def typed_agent(argv: Sequence[str], cwd: str | None) -> AgentInfo | None:
    """The AgentInfo of an agent CLI seen in the foreground of a shell pane (not a subcommand such as
    `claude mcp list`, which holds no conversation)."""
    adapter = agent_behind(argv)
    if adapter is None:
        return None
    args = list(argv)
    if not adapter.recognize(args) and len(args) > 1:
        args = args[1:]
    if not adapter.starts_conversation(args):
        return None
    return adapter.agent_info(args, adapter.launch_id(args), cwd=adapter.work_dir(args, cwd) if cwd else None)
