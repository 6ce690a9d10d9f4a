"""The headless session: what one host holds and what commands act on (no prompt_toolkit here)."""
