"""Slash commands: parsing, the registry, help and completion."""
