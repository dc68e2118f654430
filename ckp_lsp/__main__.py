"""``python -m ckp_lsp``: the language server, as ``ckp-lsp``."""

from __future__ import annotations

import sys

from .server.main import main

sys.exit(main())
