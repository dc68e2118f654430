"""YAML loaders whose only failure is a ``yaml.YAMLError``: an explicit tag the constructor cannot
build (``!!int abc``, ``!!bool maybe``, ``!!timestamp x``) is one, with the tag's position."""

from __future__ import annotations

import functools
from typing import Any


@functools.cache
def guarded_loader(base: type) -> type:
    """``base`` (a PyYAML loader class) whose constructors raise only ``ConstructorError``."""
    import yaml

    class Guarded(base):
        def construct_object(self, node: Any, deep: bool = False) -> Any:
            try:
                return super().construct_object(node, deep)
            except (yaml.YAMLError, RecursionError):
                raise
            except Exception:  # a tag's constructor given a value it cannot build
                tag = str(node.tag).replace("tag:yaml.org,2002:", "!!")
                value = str(node.value)[:40]
                raise yaml.constructor.ConstructorError(
                    None, None, f"the tag {tag} does not fit the value {value!r}", node.start_mark
                ) from None

    Guarded.__name__ = f"Guarded{base.__name__}"
    return Guarded


def safe_load(text: str) -> Any:
    """``yaml.safe_load`` that raises only ``yaml.YAMLError`` (or ``RecursionError``)."""
    import yaml

    return yaml.load(text, Loader=guarded_loader(yaml.SafeLoader))  # a safe loader, guarded
