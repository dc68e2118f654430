"""Changing a bank's files: quick fixes, header rewrites, line edits and safe atomic writes."""
