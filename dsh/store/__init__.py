"""Session logs (append-only JSONL under one shared root) and the derived SQLite query index.

Import the parts directly: `dsh.store.ids`, `.workspace`, `.log`, `.index`, `.store`.
"""
