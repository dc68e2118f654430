"""Plain value classes for the routing path: equality, hash and ``repr`` by their fields.

The prompt hook runs a process per prompt, and a ``dataclass`` costs it at import: the
``dataclasses`` module (with ``inspect``, ``ast``, ``dis`` and ``tokenize``) and about a
millisecond a class to generate and compile its methods. A class of the routing path instead names
its fields in ``_fields`` (and its ``__slots__``), or has the parameters of its ``__init__`` as
its fields, and writes its ``__init__``; ``Record`` gives
what ``@dataclass`` gave beside it: ``==`` by the fields between objects of one class, no hash
(``Frozen``: hashed by its fields), ``Class(field=value, ...)`` as its ``repr``, and ``replace``.
"""

from __future__ import annotations

from typing import Any, TypeVar

R = TypeVar("R", bound="Record")


class Record:
    """Equality and ``repr`` by the fields ``_fields`` names, in order; unhashable (a value that
    changes)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if "_fields" not in cls.__dict__ and init is not None:  # its ``__init__``'s parameters, in order
            code = init.__code__
            cls._fields = code.co_varnames[1 : code.co_argcount]

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{self.__class__.__qualname__}({shown})"

    def replace(self: R, **changes: Any) -> R:
        """A copy with ``changes`` (``TypeError`` for a name that is no field), as
        ``dataclasses.replace`` gives."""
        values = {name: getattr(self, name) for name in self._fields}
        values.update(changes)
        return self.__class__(**values)


class Frozen(Record):
    """A ``Record`` never changed once made: hashed by its fields."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._values())
