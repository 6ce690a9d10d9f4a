"""Agent conversations read from the stores the fake CLIs write (as Claude 2.1.197, codex 0.171.0 and
opencode 1.18.33 do) into the index: titles, counts, branch, incremental reads, search, bad stores."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path

import pytest

from dsh.agents.conversations.refresh import Source, refresh_agents, sources
from dsh.store import agent_table, textsearch
from dsh.store.index import SessionIndex

FAKES = Path(__file__).resolve().parent / "fakes" / "bin"


@pytest.fixture
def world(tmp_path: Path) -> dict:
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "src" / "webapp"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/feature/login\n")
    env = {"HOME": str(home), "PATH": f"{FAKES}{os.pathsep}/usr/bin:/bin", "LANG": "C.UTF-8"}
    index = SessionIndex(tmp_path / "q.db", tmp_path / "sessions", progress=io.StringIO())
    yield {"home": home, "project": project, "env": env, "index": index, "tmp": tmp_path}
    index.close()


def agent(argv: list[str], world: dict, lines: list[str], cwd: Path | None = None) -> str:
    done = subprocess.run(
        argv,
        cwd=cwd or world["project"],
        env=world["env"],
        input="".join(f"{x}\n" for x in lines),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()[2]  # "fake-<agent> session <id> in <cwd>"


def rows(world: dict) -> dict[str, agent_table.ConversationRow]:
    return {row.key: row for row in world["index"].read(lambda conn: agent_table.conversations(conn))}


def stores(world: dict) -> list[Source]:
    return [Source("claude", world["home"] / ".claude"), Source("codex", world["home"] / ".codex")]


def test_claude_conversations_with_title_prompts_branch_and_counts(world: dict) -> None:
    sid = agent(["claude"], world, ["fix the login redirect", "/rename", "and add a test"])
    other = agent(["claude"], world, ["/rename Webapp login bug", "run python -m http.server 8000"])
    found = refresh_agents(world["index"], stores(world))
    assert found.changed and not found.warnings and not found.more
    first, renamed = rows(world)[f"claude:{sid}"], rows(world)[f"claude:{other}"]
    assert first.title == "fix the login redirect" and first.first_prompt == "fix the login redirect"
    assert first.cwd == str(world["project"]) and first.branch == "feature/login"
    assert first.prompt_count == 2 and first.message_count == 4  # two prompts, two replies
    assert renamed.title == "Webapp login bug" and renamed.first_prompt == "run python -m http.server 8000"
    world["index"].sync_search()  # prompts become searchable (a listing leaves this to a worker)
    hits = world["index"].read(lambda conn: textsearch.search(conn, "http.server"))
    assert hits == [textsearch.Hit(f"a:claude:{other}", "run python -m http.server 8000")]


def test_a_conversation_that_grows_is_read_on_from_where_it_stopped(world: dict) -> None:
    sid = agent(["claude"], world, ["first question"])
    refresh_agents(world["index"], stores(world))
    before = rows(world)[f"claude:{sid}"]
    assert refresh_agents(world["index"], stores(world)).changed is False  # nothing new: nothing read
    agent(["claude", "--resume", sid], world, ["second question"])
    refresh_agents(world["index"], stores(world))
    after = rows(world)[f"claude:{sid}"]
    assert after.parsed_to > before.parsed_to and after.prompt_count == 2 and after.first_prompt == "first question"
    lines = world["index"].read(lambda c: c.execute("SELECT text FROM lines WHERE owner = ?", (f"a:claude:{sid}",)))
    assert sorted(text for (text,) in lines) == ["first question", "second question"]


def _transcript(world: dict, sid: str) -> Path:
    return next((world["home"] / ".claude" / "projects").glob(f"*/{sid}.jsonl"))


def _prompts(world: dict, sid: str) -> list[str]:
    lines = world["index"].read(lambda c: c.execute("SELECT text FROM lines WHERE owner = ?", (f"a:claude:{sid}",)))
    return sorted(line for (text,) in lines for line in text.split("\n"))


@pytest.mark.parametrize("how", ["in place", "renamed over"])
def test_a_transcript_rewritten_bigger_is_read_again_from_the_start(world: dict, how: str) -> None:
    # Rewritten (not appended to) and grown: reading on from the old end read the middle of a record.
    sid = agent(["claude"], world, ["tidy the parser"])
    path = _transcript(world, sid)
    refresh_agents(world["index"], stores(world))
    old = path.read_text()
    new = old.replace("tidy the parser", "add the ocelot endpoint now") + old.replace("tidy the parser", "and test it")
    if how == "in place":
        with path.open("r+") as handle:  # the same inode
            handle.write(new)
    else:
        (path.parent / "next").write_text(new)
        os.replace(path.parent / "next", path)
    assert refresh_agents(world["index"], stores(world)).changed
    assert _prompts(world, sid) == ["add the ocelot endpoint now", "and test it"]
    assert rows(world)[f"claude:{sid}"].first_prompt == "add the ocelot endpoint now"
    world["index"].sync_search()
    found = world["index"].read(lambda c: textsearch.search(c, "ocelot endpoint"))
    assert [hit.owner for hit in found] == [f"a:claude:{sid}"]


def test_a_big_first_read_stops_at_the_budget_and_goes_on(world: dict) -> None:
    ids = [agent(["claude"], world, [f"question {i}"]) for i in range(3)]
    first = refresh_agents(world["index"], stores(world), budget=1)
    assert first.more and len(rows(world)) == 1
    while refresh_agents(world["index"], stores(world), budget=1).more:
        pass
    assert {f"claude:{i}" for i in ids} == set(rows(world))


def test_clear_in_claude_is_a_new_conversation(world: dict) -> None:
    before = agent(["claude"], world, ["before the clear", "/clear", "after the clear"])
    refresh_agents(world["index"], stores(world))
    found = rows(world)
    assert found[f"claude:{before}"].title == "before the clear"
    (after,) = [row for key, row in found.items() if key != f"claude:{before}"]
    assert after.title == "after the clear" and after.prompt_count == 1


def test_codex_conversations_names_and_the_directory_it_was_started_for(world: dict) -> None:
    other = world["tmp"] / "elsewhere"
    other.mkdir()
    sid = agent(["codex"], world, ["start http.server for me", "/rename codex renamed one"])
    exec_id = agent(["codex", "exec", "-C", str(other), "lint everything"], world, [])
    refresh_agents(world["index"], stores(world))
    found = rows(world)
    assert found[f"codex:{sid}"].title == "codex renamed one"
    assert found[f"codex:{sid}"].first_prompt == "start http.server for me"  # not codex's environment context
    assert found[f"codex:{exec_id}"].cwd == str(other) and found[f"codex:{exec_id}"].title == "lint everything"
    agent(["codex"], world, ["/rename", ""])  # names change without a new rollout line: still seen
    with (world["home"] / ".codex" / "session_index.jsonl").open("a") as out:
        out.write(json.dumps({"id": exec_id, "thread_name": "lint it all", "updated_at": "x"}) + "\n")
    refresh_agents(world["index"], stores(world))
    assert rows(world)[f"codex:{exec_id}"].title == "lint it all"


def test_a_store_in_an_unknown_format_is_one_warning(world: dict) -> None:
    agent(["claude"], world, ["a good one"])
    bad = world["home"] / ".claude" / "projects" / "-x"
    bad.mkdir(parents=True)
    for n in range(3):
        (bad / f"0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a1{n}.jsonl").write_bytes(b"\x00\xffnot json at all\n" * 5)
    rollouts = world["home"] / ".codex" / "sessions" / "2026" / "12" / "01"
    rollouts.mkdir(parents=True)
    (rollouts / "rollout-2026-12-01T00-00-00-0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11.jsonl").write_text('{"v": 2}\n')
    found = refresh_agents(world["index"], stores(world))
    assert found.warnings == [
        f"claude: 3 files in a format this dsh does not know, skipped ({world['home'] / '.claude' / 'projects'})",
        f"codex: 1 file in a format this dsh does not know, skipped ({world['home'] / '.codex' / 'sessions'})",
    ]
    assert [row.title for row in rows(world).values()] == ["a good one"]


def test_an_unreadable_store_is_one_warning_and_a_missing_one_none(world: dict) -> None:
    (world["home"] / ".claude").mkdir()
    (world["home"] / ".claude" / "projects").write_text("a file where a folder should be")
    found = refresh_agents(world["index"], stores(world))
    assert len(found.warnings) == 1 and found.warnings[0].startswith("claude: cannot read")


def git_checkout(folder: Path) -> None:
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    commit = ["git", "-c", "user.email=a@b.c", "-c", "user.name=n", "commit", "-q", "--allow-empty", "-m", "root"]
    subprocess.run(commit, cwd=folder, check=True)


def test_opencode_conversations_of_every_project_from_its_database(world: dict) -> None:
    """`opencode session list` lists only the project it runs in (a checkout's root commit, else `global`);
    its database holds every project's sessions, with their messages."""
    other = world["tmp"] / "src" / "api"
    git_checkout(other)
    here_id = agent(["opencode"], world, ["hello opencode", "and more"])
    there_id = agent(["opencode"], world, ["a prompt in another checkout"], cwd=other)
    listed = subprocess.run(
        ["opencode", "session", "list", "--format", "json"],
        cwd=world["project"],
        env=world["env"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert [row["id"] for row in json.loads(listed.stdout)] == [here_id]
    store = Source("opencode", world["home"] / ".local" / "share" / "opencode")
    found = refresh_agents(world["index"], [store], cwds=[str(world["project"])], env=world["env"])
    assert found.changed and not found.warnings
    here, there = rows(world)[f"opencode:{here_id}"], rows(world)[f"opencode:{there_id}"]
    # Its placeholder title ("New session - <time>", until a model names it) gives way to the first prompt.
    assert (here.cwd, here.title, here.message_count) == (str(world["project"]), "hello opencode", 2)
    assert (there.cwd, there.first_prompt) == (str(other), "a prompt in another checkout")
    # The database is read again only when it changed.
    assert not refresh_agents(world["index"], [store], cwds=[str(world["project"])], env=world["env"]).changed


def test_opencode_through_its_cli_where_its_database_cannot_be_read(world: dict) -> None:
    store = Source("opencode", world["home"] / ".local" / "share" / "opencode")
    store.home.mkdir(parents=True)
    (store.home / "opencode.db").write_bytes(b"not a database " * 100)
    listed = [{"id": "ses_fromthecli1", "title": "listed by the CLI", "directory": str(world["project"]), "created": 1}]
    found = refresh_agents(
        world["index"], [store], cwds=[str(world["project"])], env=world["env"], opencode_lister=lambda cwd: listed
    )
    assert found.changed and not found.warnings
    assert rows(world)["opencode:ses_fromthecli1"].title == "listed by the CLI"
    (store.home / "opencode.db").write_bytes(b"still not a database " * 100)
    broken = refresh_agents(world["index"], [store], cwds=["/elsewhere"], env=world["env"])  # the CLI fails too
    assert broken.warnings == ["opencode: `opencode session list` gave no list; its conversations are not shown"]


def test_each_source_has_a_config_switch(world: dict) -> None:
    env = {"HOME": str(world["home"]), "CLAUDE_CONFIG_DIR": "/c"}
    assert [s.name for s in sources({}, env)] == ["claude", "codex", "opencode"]
    assert [s.name for s in sources({"claude": False, "opencode": False}, env)] == ["codex"]
    assert sources({}, env)[0].home == Path("/c")


def test_a_removed_transcript_leaves_the_index(world: dict) -> None:
    sid = agent(["claude"], world, ["soon gone"])
    refresh_agents(world["index"], stores(world))
    next((world["home"] / ".claude" / "projects").glob(f"*/{sid}.jsonl")).unlink()
    refresh_agents(world["index"], stores(world))
    world["index"].sync_search()
    assert rows(world) == {}
    assert world["index"].read(lambda conn: textsearch.search(conn, "soon gone")) == []


def test_two_stores_of_one_agent_are_both_listed(world: dict) -> None:
    mine = agent(["claude"], world, ["in the usual store"])
    world["env"]["CLAUDE_CONFIG_DIR"] = str(world["tmp"] / "work-config")
    theirs = agent(["claude"], world, ["in another store"])
    both = [Source("claude", world["home"] / ".claude"), Source("claude", world["tmp"] / "work-config")]
    refresh_agents(world["index"], both)
    refresh_agents(world["index"], both)
    assert {f"claude:{mine}", f"claude:{theirs}"} == set(rows(world))


def test_a_fifo_in_an_agent_store_is_passed_over_never_waited_on(world: dict) -> None:
    agent(["claude"], world, ["a real one"])
    folder = next((world["home"] / ".claude" / "projects").iterdir())
    os.mkfifo(folder / "0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11.jsonl")
    (world["home"] / ".claude" / "sessions").mkdir(exist_ok=True)
    os.mkfifo(world["home"] / ".claude" / "sessions" / "4242.json")
    found = refresh_agents(world["index"], stores(world))
    assert [row.title for row in rows(world).values()] == ["a real one"] and not found.warnings
    from dsh.agents.claude import ClaudeAdapter

    assert ClaudeAdapter().id_from_process(4242, None, {"HOME": str(world["home"])}) is None


def test_only_the_stores_own_conversation_files_are_listed(tmp_path: Path) -> None:
    """Claude's `<uuid>.jsonl` and Codex's `rollout-*.jsonl` files, regular files only: other names, folders
    named like them, and a name with a newline are told apart as before the names were matched by patterns."""
    from dsh.agents.conversations.refresh import claude_files, codex_files

    sid = "12345678-1234-1234-1234-123456789abc"
    project = tmp_path / "claude" / "projects" / "-w"
    project.mkdir(parents=True)
    for name in (f"{sid}.jsonl", "notes.jsonl", f"{sid}.json", f"x{sid}.jsonl"):
        (project / name).write_text("{}\n")
    (project / f"{sid[:-1]}d.jsonl").mkdir()  # a folder with a conversation's name
    day = tmp_path / "codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    for name in ("rollout-a.jsonl", "rollout-b\n.jsonl", "other.jsonl", "rollout-c.json"):
        (day / name).write_text("{}\n")
    warnings: list[str] = []
    assert sorted(Path(p).name for p in claude_files(tmp_path / "claude", warnings)) == [f"{sid}.jsonl"]
    codex = sorted(Path(p).name for p in codex_files(tmp_path / "codex", warnings))
    assert codex == ["rollout-a.jsonl", "rollout-b\n.jsonl"]
    assert warnings == []
