"""A bank: its files read from disk and cached, its concepts, claims and staleness, and its findings."""
