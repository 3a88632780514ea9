"""Authoritative asyncio game server (see the server issue)."""
