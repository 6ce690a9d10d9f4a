"""Session logs (append-only JSONL under one shared root) and the derived SQLite query index."""
