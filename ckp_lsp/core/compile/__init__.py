"""Compiling a header (SPEC §7): prompt, providers, the answer contract, the offline compiler."""
