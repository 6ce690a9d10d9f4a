"""The per-session host process: it holds the session's terminals and serves one client at a time."""
