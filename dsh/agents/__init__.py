"""One adapter per agent CLI: recognize it, learn its session id, build its resume argv."""
