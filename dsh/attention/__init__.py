"""Agent attention: which agent is working, which needs you, which is done; plain models, no screen."""
