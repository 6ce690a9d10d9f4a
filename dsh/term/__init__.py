"""One terminal: a PTY child, a fast pyte screen, keys to bytes, screen to styled lines."""
