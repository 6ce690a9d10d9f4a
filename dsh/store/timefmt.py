"""Timestamps as stored in session logs: ISO-8601 UTC with milliseconds, e.g. 2026-11-29T20:30:00.123Z."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def now_iso() -> str:
    return iso_from_epoch(time.time())


def iso_from_epoch(seconds: float) -> str:
    stamp = datetime.fromtimestamp(seconds, UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


def epoch_from_iso(text: str) -> float | None:
    """Seconds since the epoch for a stored timestamp, or None if it is not one."""
    try:
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return stamp.timestamp()
