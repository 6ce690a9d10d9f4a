"""Which sessions have a running host: the client's name for `dsh.hostquery` (a host asks it too)."""

from __future__ import annotations

from dsh.hostquery import QUERY_TIMEOUT, query, running_hosts

__all__ = ["QUERY_TIMEOUT", "query", "running_hosts"]
