"""What an agent is given: its memory text, prompt hooks, and secrets found and redacted."""
