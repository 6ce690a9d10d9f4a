"""The prompt_toolkit application: thin views over the models."""
