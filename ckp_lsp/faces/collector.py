"""Reading a large bank without the cyclic garbage collector walking it again and again."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

#: objects made while paused above which they are put out of the collector's sight (a bank of a
#: few thousand files); fewer are left to it, as is any garbage made meanwhile
FREEZE_ABOVE = 100_000


@contextlib.contextmanager
def paused_collection() -> Iterator[None]:
    """No cyclic garbage collection meanwhile, and many objects made meanwhile out of its sight after.

    Reading a bank (or its cache) makes millions of objects that live as long as it and hold no
    cycles (refcounting frees them). Collected meanwhile, they would be walked again at each
    collection (half the time of a large bank); left to the collector after, its next collections
    would walk them all once per generation, and again at each full collection: seconds at
    100,000 files. ``gc.freeze`` moves them to the permanent generation instead (with whatever
    cyclic garbage is not yet collected then, which is never collected: hence only above
    FREEZE_ABOVE).
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_count()[0] > FREEZE_ABOVE:
            gc.freeze()
        if collecting:
            gc.enable()
