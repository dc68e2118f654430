"""What the mentat sample holds, as the tests of every face (the server, each editor) expect it."""

from __future__ import annotations

#: the files that name ``mentat`` (projects/mentat.md): the index, one HIGH and three MID backlinks
MENTAT_REFERRERS = [
    "_index.md",
    "mentat/istat.md",
    "projects/civis.md",
    "projects/prescient.md",
    "projects/travelguidehub.md",
]
