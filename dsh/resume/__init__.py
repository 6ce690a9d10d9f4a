"""Resume: candidates, the picker model, preflight and handoff."""
