"""Layered TOML config: shipped base < personal overlay < DSH_* env < flags."""
