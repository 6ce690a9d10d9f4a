"""Data shipped with dsh: the base config and shell completions."""
