"""The prompt's models: merged history, reverse search, suggestions, completion sources (no UI here)."""
