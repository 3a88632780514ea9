"""Wire protocol (sans-I/O msgpack framing); see the protocol issue."""
