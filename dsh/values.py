"""Value classes written by hand for the host's start-up path: a dataclass's repr, == and hash, no codegen.

`@dataclass` makes each class by generating the source of its methods and compiling it: about 1 ms a
class, and some 35 were made on the way to a new session's first frame. A `Value` subclass names its
fields and writes its own `__init__`; this base gives what the dataclass gave besides: the repr
(`Name(a=1, b='x')`), `==` between two objects of the same class comparing the fields in order, no
hash unless frozen, and for `frozen=True` a hash of the fields and no assignment
(`dataclasses.FrozenInstanceError`, imported only then: dataclasses with inspect is 9-13 ms of a start
that never makes one, such as the listing another machine's picker asks for). A frozen class sets its
fields with `object.__setattr__`.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, ClassVar


class Value:
    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _key: ClassVar[Any]
    __match_args__: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, fields: tuple[str, ...] = (), frozen: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._fields = fields
        # mypy allows __match_args__ only in a class body; here each subclass names its own, as @dataclass does.
        cls.__match_args__ = fields  # type: ignore[misc]
        # A tuple of the field values (attrgetter of one name gives the value itself, which compares alike).
        cls._key = attrgetter(*fields) if fields else _no_fields
        if frozen:
            # A frozen class's own methods, set on the class as dataclass(frozen=True) writes them.
            cls.__setattr__ = _refuse_set  # type: ignore[method-assign, assignment]
            cls.__delattr__ = _refuse_delete  # type: ignore[method-assign, assignment]
            cls.__hash__ = _hash_fields  # type: ignore[method-assign, assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return bool(self._key(self) == self._key(other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # as a dataclass with eq and not frozen


def _no_fields(_value: object) -> tuple[()]:
    return ()


def _hash_fields(self: Value) -> int:
    return hash(self._key(self))


def _refuse_set(self: Value, name: str, value: object) -> None:
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _refuse_delete(self: Value, name: str) -> None:
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot delete field {name!r}")
