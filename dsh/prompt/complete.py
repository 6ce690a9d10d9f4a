"""Completing a shell line on the prompt: file names, command names from PATH, the shell's own
programmable completion (bash-completion); each candidate quoted as the shell needs it."""

from __future__ import annotations

import bisect
import os
import re
import shutil
import stat
import subprocess
from collections.abc import Mapping
from typing import NamedTuple

from dsh.values import Value

# The menu shows the first this many; Tab still inserts what all the candidates have in common.
MENU_MAX = 1000
BASH_TIMEOUT = 2.0
BASH_COMPLETION_SCRIPTS = ("/usr/share/bash-completion/bash_completion", "/etc/bash_completion")
# Characters a shell word cannot hold unquoted.
_SPECIAL = re.compile(r"""[\s'"\\$`!*?&;|<>(){}\[\]#~=%^]""")
_PLAIN = re.compile(r"[\w./@+,:-]*")
_BUILTINS = (
    "alias",
    "bg",
    "cd",
    "command",
    "echo",
    "exec",
    "exit",
    "export",
    "fg",
    "history",
    "jobs",
    "kill",
    "printf",
    "pwd",
    "read",
    "set",
    "source",
    "test",
    "type",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "wait",
)


class Candidate(NamedTuple):
    """One completion: `text` replaces the word being completed (already quoted); `display` is what
    the menu shows, and `meta` a word about it (dir, command). A NamedTuple: a big folder makes
    thousands of these per Tab."""

    text: str
    display: str
    meta: str = ""


class Found(list[Candidate]):
    """Candidates for the menu (at most MENU_MAX, in order), knowing how many matched in all and what
    every one of them has in common (what Tab inserts)."""

    def __init__(self, items: list[Candidate], total: int | None = None, common: str | None = None) -> None:
        super().__init__(items)
        self.total = len(items) if total is None else total
        self.common = common_prefix(items) if common is None else common


class Word(Value, fields=("start", "typed", "value", "index", "words", "quote"), frozen=True):
    """The word under the cursor: where it starts in the line, as typed and as the shell reads it."""

    start: int
    typed: str
    value: str
    index: int  # 0 for the command name
    words: tuple[str, ...]  # the words before it, as the shell reads them
    quote: str  # the open quote the word started with, if any

    def __init__(self, start: int, typed: str, value: str, index: int, words: tuple[str, ...], quote: str = "") -> None:
        setattr_ = object.__setattr__
        setattr_(self, "start", start)
        setattr_(self, "typed", typed)
        setattr_(self, "value", value)
        setattr_(self, "index", index)
        setattr_(self, "words", words)
        setattr_(self, "quote", quote)


def current_word(line: str) -> Word:
    """Split `line` (the text before the cursor) as a shell would, keeping the last word's start."""
    words: list[str] = []
    start = 0
    i = 0
    current = ""
    in_word = False
    quote = ""
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"' and i + 1 < len(line):
                i += 1
                current += line[i]
            else:
                current += ch
        elif ch in " \t":
            if in_word:
                words.append(current)
                current, in_word = "", False
        elif ch in ";|&":
            # A new command starts after a separator: what follows is completed as a command name.
            if in_word:
                words.append(current)
                current, in_word = "", False
            words = []
        else:
            if not in_word:
                in_word, start = True, i
            if ch in "'\"":
                quote = ch
            elif ch == "\\" and i + 1 < len(line):
                i += 1
                current += line[i]
            else:
                current += ch
        i += 1
    if not in_word:
        start = len(line)
    typed = line[start:]
    opened = typed[:1] if typed[:1] in ("'", '"') else ""
    return Word(start, typed, current, len(words), tuple(words), opened)


def quote_word(text: str, opened: str = "") -> str:
    """`text` as one shell word: inside the quote it was started with, else with backslashes. A
    leading `~/` stays as it is, for the shell to expand."""
    if not opened and _PLAIN.fullmatch(text):
        return text
    if opened == "'":
        return "'" + text.replace("'", "'\\''")
    if opened == '"':
        return '"' + re.sub(r'(["\\$`])', r"\\\1", text)
    tilde = ""
    if text == "~" or text.startswith("~/"):
        tilde, text = "~", text[1:]
    return tilde + (_SPECIAL.sub(lambda m: "\\" + m.group(), text) if text else text)


def complete_path(word: Word, cwd: str, *, dirs_only: bool = False) -> Found:
    """Files and directories matching the word, relative to the pane's directory; `~` expanded.
    Sorted by name; the first MENU_MAX of them (see Found)."""
    value = word.value
    head, _, tail = value.rpartition("/")
    shown_dir = f"{head}/" if "/" in value else ""
    if not shown_dir:
        base = "."
    elif not head:
        base = "/"
    else:
        base = os.path.expanduser(head)
    directory = base if os.path.isabs(base) else os.path.join(cwd, base)
    hidden = tail.startswith(".")
    matches: list[tuple[str, bool]] = []
    try:
        entries = os.scandir(directory)
    except OSError:
        return Found([])
    with entries:
        for entry in entries:
            name = entry.name
            if not name.startswith(tail) or (name[0] == "." and not hidden):
                continue
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir or not dirs_only:
                matches.append((name, is_dir))
    matches.sort()
    end = word.quote + " "  # a file ends the word, as readline's completion does

    def candidate(name: str, is_dir: bool) -> Candidate:
        text = quote_word(shown_dir + name, word.quote)
        return Candidate(text + "/", name + "/", "dir") if is_dir else Candidate(text + end, name)

    out = [candidate(*match) for match in matches[:MENU_MAX]]
    if len(matches) <= MENU_MAX:
        return Found(out)
    # Sorted, so what all have in common is what the first and the last have in common.
    return Found(out, len(matches), common_prefix([out[0], candidate(*matches[-1])]))


class CommandNames:
    """Executable names on a PATH, listed once per PATH and rescanned when a folder of it changes."""

    def __init__(self) -> None:
        self._path: str | None = None
        self._stamps: tuple[float, ...] = ()
        self._names: list[str] = []

    def names(self, path: str) -> list[str]:
        folders = [p for p in path.split(os.pathsep) if p]
        stamps = tuple(_mtime(p) for p in folders)
        if path != self._path or stamps != self._stamps:
            self._path, self._stamps = path, stamps
            self._names = sorted(_executables(folders) | set(_BUILTINS))
        return self._names

    def complete(self, word: Word, path: str) -> list[Candidate]:
        prefix = word.value
        names = self.names(path)
        lo = bisect.bisect_left(names, prefix)
        out = []
        for name in names[lo:]:
            if not name.startswith(prefix):
                break
            out.append(Candidate(quote_word(name, word.quote) + " ", name, "command"))
            if len(out) > MENU_MAX:
                break
        return out


def _mtime(folder: str) -> float:
    try:
        return os.stat(folder).st_mtime
    except OSError:
        return 0.0


def _executables(folders: list[str]) -> set[str]:
    found: set[str] = set()
    for folder in folders:
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    info = entry.stat()
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode) and info.st_mode & 0o111:
                    found.add(entry.name)
    return found


def has_bash_completion(command: str, env: Mapping[str, str]) -> bool:
    """Whether bash-completion ships a completion of its own for `command` (git, ssh, make, apt …),
    as its loader would find it; plain file arguments (cat, ls, vim) are completed here, faster."""
    if not command or "/" in command:
        return False
    name = os.path.basename(command)
    data = env.get("XDG_DATA_HOME") or os.path.join(env.get("HOME", "~"), ".local", "share")
    folders = (
        os.path.join(data, "bash-completion", "completions"),
        "/usr/share/bash-completion/completions",
        "/etc/bash_completion.d",
    )
    return any(os.path.isfile(os.path.join(folder, name)) for folder in folders)


def bash_completion_script() -> str | None:
    for path in BASH_COMPLETION_SCRIPTS:
        if os.path.isfile(path):
            return path
    return None


# Run in `bash -c`: load bash-completion, find the completion of the command (loading it on demand),
# call its function as readline would, and print what it put in COMPREPLY, one per line.
_BASH_SCRIPT = r"""
source "$1" 2>/dev/null || exit 3
shift
cmd=$1; cur=$2; prev=$3; cword=$4; shift 4
COMP_WORDS=("$@"); COMP_CWORD=$cword; COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
spec=$(complete -p "$cmd" 2>/dev/null)
if [[ -z $spec ]]; then
    declare -F _completion_loader >/dev/null && _completion_loader "$cmd" 2>/dev/null
    spec=$(complete -p "$cmd" 2>/dev/null)
fi
[[ -z $spec ]] && exit 4
eval "set -- ${spec#complete }"
func=""
words=""
while [[ $# -gt 1 ]]; do
    case $1 in
        -F) func=$2; shift 2 ;;
        -W) words=$2; shift 2 ;;
        -o|-A|-G|-P|-S|-X|-C) shift 2 ;;
        *) shift ;;
    esac
done
if [[ -n $func ]]; then
    COMPREPLY=()
    "$func" "$cmd" "$cur" "$prev" 2>/dev/null
    printf '%s\n' "${COMPREPLY[@]}"
elif [[ -n $words ]]; then
    compgen -W "$words" -- "$cur"
fi
"""


def bash_programmable(word: Word, cwd: str, env: Mapping[str, str], *, bash: str | None = None) -> list[str] | None:
    """What the command's bash completion offers for the word (raw words, unquoted), or None when
    bash, bash-completion or a completion for this command is missing."""
    script = bash_completion_script()
    bash = bash or shutil.which("bash", path=env.get("PATH", os.defpath))
    if script is None or bash is None or not word.words:
        return None
    words = [*word.words, word.value]
    prev = words[-2] if len(words) > 1 else ""
    try:
        done = subprocess.run(
            [
                bash,
                "--norc",
                "--noprofile",
                "-c",
                _BASH_SCRIPT,
                "dsh-complete",
                script,
                words[0],
                word.value,
                prev,
                str(len(words) - 1),
                *words,
            ],
            cwd=cwd if os.path.isdir(cwd) else None,
            env=dict(env),
            capture_output=True,
            timeout=BASH_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode not in (0, 1):
        return None
    lines = done.stdout.decode("utf-8", "surrogateescape").split("\n")
    seen: dict[str, None] = {}
    for line in lines:
        text = line.rstrip(" ")
        if text:
            seen.setdefault(text, None)
    return list(seen)[:MENU_MAX]


def complete_line(line: str, cwd: str, env: Mapping[str, str], commands: CommandNames) -> tuple[Word, Found]:
    """Everything for Tab after `line` (the text before the cursor) in a pane whose shell is in `cwd`."""
    word = current_word(line)
    if word.index == 0 and "/" not in word.value:
        if not word.value:
            return word, Found([])
        return word, Found(commands.complete(word, env.get("PATH", os.defpath)))
    if word.index > 0 and has_bash_completion(word.words[0], env):
        found = bash_programmable(word, cwd, env)
        if found:
            return word, Found([_programmable(text, word, cwd) for text in found])
    if word.index > 0 and word.words[0] in ("cd", "pushd", "rmdir"):
        return word, complete_path(word, cwd, dirs_only=True)
    return word, complete_path(word, cwd)


def _programmable(text: str, word: Word, cwd: str) -> Candidate:
    """One of bash-completion's results, which come unquoted (readline would quote them), and names a
    directory with no slash (readline would add it for `-o filenames`)."""
    bare = text.rstrip("/")
    path = os.path.expanduser(bare)
    directory = text.endswith("/") or (
        bool(bare) and os.path.isdir(path if os.path.isabs(path) else os.path.join(cwd, path))
    )
    quoted = quote_word(bare, word.quote)
    if directory:
        return Candidate(quoted + "/", bare + "/", "dir")
    return Candidate(quoted + (word.quote or "") + " ", text)


def common_prefix(candidates: list[Candidate]) -> str:
    """The longest start every candidate shares (characters, not path parts: bash inserts this)."""
    if not candidates:
        return ""
    first, last = min(c.text for c in candidates), max(c.text for c in candidates)
    size = 0
    while size < min(len(first), len(last)) and first[size] == last[size]:
        size += 1
    return first[:size]


__all__ = ["Candidate", "CommandNames", "Found", "Word", "common_prefix", "complete_line", "current_word", "quote_word"]
