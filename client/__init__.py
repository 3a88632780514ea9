"""Pygame client (see the client issue)."""
