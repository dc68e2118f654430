"""Talking to an LLM: sending the core's requests over HTTP, running the command provider."""
