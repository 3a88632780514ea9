"""Authoritative asyncio game server: lobby, tables, sessions, durable storage, timers.

Layers inside the package: ``storage`` and ``table`` know nothing of connections
beyond the small protocols they declare; ``session`` drives one connection for a
``Host``; ``app.Server`` is that host and ties them together.
"""
