"""Where and how a client connects: the address (``host``/``port`` or ``"unix:/path"``), TLS, and
the caller's credentials. Shared by the blocking and the asyncio client."""

from __future__ import annotations

import os
import ssl
from dataclasses import dataclass, field
from typing import Union

from .errors import ApplicationError, TollgateError, TLSError

UNIX_PREFIX = "unix:"

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class TLSConfig:
    """TLS 1.2 or newer on the connection, always verified.

    ``ca_file``: PEM CA certificates that verify the server (None: the system's roots).
    ``server_name``: the name the server's certificate must carry (None: the host; an IP address
    is checked against the certificate's IP addresses). ``certificate_file`` and
    ``private_key_file``: this client's certificate (chain) and key for mutual TLS (the key may
    sit in the certificate file). There is no switch that turns verification off.

    The files are read when the client is made: a missing one raises OSError, a bad PEM
    ssl.SSLError.
    """

    ca_file: PathLike | None = None
    server_name: str | None = None
    certificate_file: PathLike | None = None
    private_key_file: PathLike | None = None

    def context(self) -> ssl.SSLContext:
        if self.private_key_file is not None and self.certificate_file is None:
            raise ValueError("private_key_file needs certificate_file")
        context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=self.ca_file)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.check_hostname = True
        context.verify_mode = ssl.CERT_REQUIRED
        if self.certificate_file is not None:
            context.load_cert_chain(self.certificate_file, self.private_key_file)
        return context


@dataclass(frozen=True)
class Credentials:
    """A caller's name and secret key. The key never shows in a repr or a message."""

    caller: str
    key: str = field(repr=False)

    def __post_init__(self) -> None:
        if not self.caller:
            raise ValueError("caller must not be empty")
        if not self.key:
            raise ValueError("a caller needs its key")


@dataclass(frozen=True)
class Endpoint:
    """Everything a connection needs: made once by a client, used for every (re)connection."""

    host: str
    port: int
    tls: ssl.SSLContext | None
    server_name: str | None
    credentials: Credentials | None

    @property
    def unix_path(self) -> str | None:
        return self.host[len(UNIX_PREFIX):] if self.host.startswith(UNIX_PREFIX) else None

    @property
    def peer(self) -> str:
        """The server, as messages name it: "host:port" or "unix:/path"."""
        return self.host if self.unix_path is not None else f"{self.host}:{self.port}"


def make_endpoint(
    host: str, port: int, tls: TLSConfig | bool | None, caller: str | None, key: str | None
) -> Endpoint:
    config = TLSConfig() if tls is True else (tls or None)
    is_unix = host.startswith(UNIX_PREFIX)
    if is_unix and not host[len(UNIX_PREFIX):]:
        raise ValueError("a unix: address needs a path")
    server_name = None
    if config is not None:
        server_name = config.server_name or (None if is_unix else host)
        if server_name is None:
            raise ValueError("TLS over a Unix socket needs TLSConfig(server_name=...)")
    if key is not None and caller is None:
        raise ValueError("a key needs its caller")
    credentials = Credentials(caller, key or "") if caller is not None else None
    return Endpoint(host, port, config.context() if config else None, server_name, credentials)


def tls_error(error: ssl.SSLError, peer: str, handshake: bool) -> TLSError:
    """The TLSError for what OpenSSL reported; certificate failures name the reason."""
    what = "TLS handshake with" if handshake else "TLS with"
    if isinstance(error, ssl.SSLCertVerificationError):
        return TLSError(f"{what} {peer}: the server's certificate did not verify: {error.verify_message}")
    reason = error.reason or error.strerror or str(error)
    return TLSError(f"{what} {peer}: {reason.replace('_', ' ').lower()}")


def authentication_failed(error: TollgateError, caller: str) -> TollgateError:
    """The error for a refused or failed Authenticate, naming the caller (never the key)."""
    message = f"authenticating as {caller}: {error.message}"
    if isinstance(error, ApplicationError):
        return type(error)(message, error.proto_code)
    return type(error)(message)


def describe(kind: str, endpoint: Endpoint, servers: list[str] | None = None) -> str:
    """A client's repr: where it connects (every server, when several), as whom and whether over
    TLS; never the key."""
    where = repr(endpoint.host) if endpoint.unix_path is not None else f"{endpoint.host!r}, {endpoint.port}"
    if servers is not None and len(servers) > 1:
        where = f"servers={servers!r}"
    caller = f", caller={endpoint.credentials.caller!r}" if endpoint.credentials is not None else ""
    tls = ", tls=True" if endpoint.tls is not None else ""
    return f"{kind}({where}{caller}{tls})"
