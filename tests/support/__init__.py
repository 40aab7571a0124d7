"""Helpers shared by several test folders (one concept per module)."""
