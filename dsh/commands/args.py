"""A command's arguments declared once, as tmux's cmd_entry args template: checked, and its usage, from it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dsh.commands.errors import UsageError
from dsh.values import Value

__all__ = ["Given", "Takes"]


class Takes(Value, fields=("flags", "words", "lower", "upper", "choices", "hint", "command", "needs"), frozen=True):
    """What a command takes.

    `flags`: each `-f`, or `-c DIR` for a flag with a word after it, or `-h|-v` for flags of which the
    last given counts. Then positional `words` (their part of the usage, e.g. `[CMD ...]`), at least
    `lower` and at most `upper` of them (None: any number). `choices`: the words the first may be
    (its usage and completion when `words` is empty). `hint`: what the refusal says when a word is
    missing or not a choice. `command`: from the first positional on the words are a command line of
    their own, so flags stop there (as getopt does); otherwise flags may come anywhere. `needs`: what a
    flag's refusal says its word is (`-t needs a tab`), by flag.
    """

    __slots__ = ("choices", "command", "flags", "hint", "lower", "needs", "upper", "words")
    flags: tuple[str, ...]
    words: str
    lower: int
    upper: int | None
    choices: tuple[str, ...]
    hint: str
    command: bool
    needs: tuple[tuple[str, str], ...]  # (flag, what its word is): pairs, so that a Takes hashes

    def __init__(
        self,
        *,
        flags: Sequence[str] = (),
        words: str = "",
        lower: int = 0,
        upper: int | None = 0,
        choices: Sequence[str] = (),
        hint: str = "",
        command: bool = False,
        needs: Mapping[str, str] | None = None,
    ) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "flags", tuple(flags))
        setattr_(self, "words", words)
        setattr_(self, "lower", lower)
        setattr_(self, "upper", upper)
        setattr_(self, "choices", tuple(choices))
        setattr_(self, "hint", hint)
        setattr_(self, "command", command)
        setattr_(self, "needs", tuple((needs or {}).items()))

    @property
    def usage(self) -> str:
        """The usage after the command's name: `[-h|-v] [-c DIR] [CMD ...]`."""
        words = self.words or "|".join(self.choices)
        return " ".join([*(f"[{flag}]" for flag in self.flags), *([words] if words else [])])

    def _flag_table(self) -> dict[str, tuple[str, tuple[str, ...]]]:
        """Each flag: (the name of its word, or ""; the flags it overrides)."""
        table: dict[str, tuple[str, tuple[str, ...]]] = {}
        for spec in self.flags:
            name, _, word = spec.partition(" ")
            group = tuple(name.split("|"))
            for each in group:
                table[each] = (word, tuple(other for other in group if other != each))
        return table

    def parse(self, name: str, args: Sequence[str]) -> Given:
        """The flags and words in `args` for command `name`, or a UsageError saying what is wrong (the
        registry adds the usage)."""
        table = self._flag_table()
        flags: dict[str, str] = {}
        words: list[str] = []
        rest = list(args)
        while rest:
            word = rest.pop(0)
            if table and not (self.command and words) and word.startswith("-") and len(word) > 1:
                if word not in table:
                    raise UsageError(f"unknown option {word}")
                meta, overrides = table[word]
                for other in overrides:
                    flags.pop(other, None)
                if meta:
                    if not rest:
                        raise UsageError(f"{word} needs {dict(self.needs).get(word, meta)}")
                    flags[word] = rest.pop(0)
                else:
                    flags[word] = ""
                continue
            words.append(word)
        if self.upper is not None and len(words) > self.upper:
            if self.upper == 0:
                raise UsageError(f"unknown argument {words[0]}" if table else f"/{name} takes no arguments")
            raise UsageError("too many arguments")
        if len(words) < self.lower or (self.choices and words and words[0] not in self.choices):
            raise UsageError(self.hint or "missing arguments")
        return Given(flags, words)


class Given(Value, fields=("flags", "words")):
    """A command line's arguments as its declaration read them: the flags given (a flag's word, or ""
    for a flag alone) and the positional words in order."""

    __slots__ = ("flags", "words")
    flags: dict[str, str]
    words: list[str]

    def __init__(self, flags: dict[str, str], words: list[str]) -> None:
        self.flags = flags
        self.words = words

    def has(self, flag: str) -> bool:
        return flag in self.flags

    def value(self, flag: str) -> str | None:
        """The word given after `flag`, or None when it was not given."""
        return self.flags.get(flag)
