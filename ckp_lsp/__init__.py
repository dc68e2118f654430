"""CKP memory banks: a pure core, a language server and a command line."""

__version__ = "0.1.0"
