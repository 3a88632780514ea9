"""TLS for the protocol's TCP connections (the standard library's ``ssl``).

A server started with a certificate and its key (``kaitaku server --tls-cert
FILE --tls-key FILE``) speaks TLS only: the frames of docs/PROTOCOL.md travel
inside TLS 1.2 or newer, from the first byte of the connection. Clients verify
the server: by default against the system's trusted certificates and the
host name they connect to (:func:`client_context`), or against a CA file of
their own (``--tls-ca FILE``). A server's own bot processes connect over
loopback and trust exactly the server's certificate, whatever host name it
names (:func:`pinned_context`, ``kaitaku bot --tls-pin FILE``).
"""

from __future__ import annotations

import re
import ssl
from pathlib import Path

_PEM_CERT = re.compile(r"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----", re.S)


def server_context(cert: str, key: str | None = None) -> ssl.SSLContext:
    """A server's TLS context: its certificate chain ``cert`` (PEM) and private
    ``key`` (PEM; None: in the ``cert`` file). Raises :class:`OSError` or
    :class:`ssl.SSLError` with a reason when they cannot be loaded."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(cert, key)
    return ctx


def client_context(ca: str | None = None) -> ssl.SSLContext:
    """A client's TLS context that verifies the server's certificate and host
    name: against the system's trusted certificates, or the CA file ``ca``."""
    ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=ca)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    return ctx


def pinned_context(cert: str) -> ssl.SSLContext:
    """A client's TLS context that trusts exactly one certificate: the first
    one in the PEM file ``cert`` (a server's own certificate), whatever host
    name it names and whoever issued it. For the bots a server starts: they
    connect to it over loopback."""
    text = Path(cert).read_text(encoding="ascii", errors="replace")
    first = _PEM_CERT.search(text)
    if first is None:
        raise ssl.SSLError(f"no certificate in {cert!r}")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN  # a leaf may be the trust anchor
    ctx.load_verify_locations(cadata=first.group(0))
    return ctx
