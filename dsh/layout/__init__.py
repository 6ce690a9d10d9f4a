"""Tabs and the split tree as plain data: split, close, focus by direction, zoom, resize, serialize."""
