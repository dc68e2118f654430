"""The arguments of a one-shot command (``ckp hook``, ``ckp route``) read without argparse.

A prompt hook runs a new process on every prompt; importing argparse and building its parser
(gettext, locale, shutil for the terminal's width) costs it more than routing a question does.
A command module names its arguments in ``QUICK``, as its ``add_parser`` declares them; a command
line in their plain form (the positionals, and long options each with its value, in any order)
is read here, and anything else (help, an abbreviation, a bad value, ``--``) goes to argparse,
which reads or explains it as always.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any, NamedTuple


class Option(NamedTuple):
    """A long option with one value: where it goes, how it is read, what it may be."""

    dest: str
    convert: Callable[[str], Any] = str
    choices: tuple[str, ...] | None = None
    default: Any = None


class Quick(NamedTuple):
    """A command's arguments: its positionals ``(name, convert)`` in order, and its options; the
    first ``optional`` positionals may be left out (None), as argparse's ``nargs="?"`` before a
    required one reads them."""

    positionals: tuple[tuple[str, Callable[[str], Any]], ...]
    options: dict[str, Option]
    optional: int = 0


def quick_args(command: str, argv: Sequence[str], spec: Quick, run: Callable[..., int]) -> Any:
    """The namespace argparse would give ``command argv`` (``command``, ``run`` and every
    argument), or None where argparse is to read it."""
    values = {o.dest: o.default for o in spec.options.values()}
    positionals: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if not token.startswith("-"):
            positionals.append(token)
            continue
        flag, eq, value = token.partition("=")
        option = spec.options.get(flag)
        if option is None:
            return None  # help, an abbreviation, an unknown option or ``--``: argparse's to say
        if not eq:
            if i == len(argv) or argv[i].startswith("-"):
                return None
            value = argv[i]
            i += 1
        if option.choices is not None and value not in option.choices:
            return None
        try:
            values[option.dest] = option.convert(value)
        except ValueError:
            return None
    left_out = len(spec.positionals) - len(positionals)
    if not 0 <= left_out <= spec.optional:
        return None
    for name, _ in spec.positionals[:left_out]:
        values[name] = None
    for (name, convert), value in zip(spec.positionals[left_out:], positionals, strict=True):
        values[name] = convert(value)
    return SimpleNamespace(command=command, run=run, **values)
