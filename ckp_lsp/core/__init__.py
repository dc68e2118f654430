"""The pure core, by concept: the format, the bank, navigation, edits, project set-up, routing,
compiling and what an agent is given. Knows nothing of LSP."""
