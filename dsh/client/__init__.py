"""The `dsh` client: raw mode on the user's terminal, bytes to and from the session's host. No prompt_toolkit."""
