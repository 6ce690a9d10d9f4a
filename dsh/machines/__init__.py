"""Other machines reached over the user's own OpenSSH: their config, the ssh command lines, listings."""
