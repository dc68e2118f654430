"""Navigating a bank: what lies under a cursor, where a concept is named, outlines and the graph."""
