"""Agent conversations for /resume and `dsh sessions --agents`: each agent store's reader and their refresh."""
