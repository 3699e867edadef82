"""A scripted stand-in for the server, for what a real one never does on demand: stay silent,
hang up mid-call, or answer with bytes that break the protocol. Serves one connection on a thread
(TCP, a Unix socket, or TLS over either) and reads one request frame before each act, recording
what it read; later connection attempts are refused."""

from __future__ import annotations

import socket
import ssl
import struct
import threading


class FakeServer:
    SILENT = "silent"
    HANG_UP = "hang_up"
    REPLY = "reply"  # answers request i with the i-th frame of `reply`; silent once they run out

    def __init__(
        self,
        behaviour: str,
        reply: bytes = b"",
        *,
        unix_path: str | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.behaviour = behaviour
        self.reply = reply
        self.tls = tls
        #: The request frames read, in order.
        self.received = b""
        if unix_path is not None:
            self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._listener.bind(unix_path)
            self._listener.listen(4)
            self.port = 0
        else:
            self._listener = socket.create_server(("127.0.0.1", 0))
            self.port = self._listener.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self._listener.close()

    def _read(self, connection: socket.socket, length: int) -> bytes:
        data = b""
        while len(data) < length and not self._stop.is_set():
            try:
                chunk = connection.recv(length - len(data))
            except socket.timeout:
                continue
            except OSError:
                break
            if not chunk:
                break
            data += chunk
        return data

    def _frames(self) -> list[bytes]:
        frames, offset = [], 0
        while offset < len(self.reply):
            end = offset + 16 + struct.unpack_from("<I", self.reply, offset + 8)[0] if len(self.reply) - offset >= 16 \
                else len(self.reply)
            frames.append(self.reply[offset:min(end, len(self.reply))])
            offset = end
        return frames

    def _serve(self) -> None:
        self._listener.settimeout(0.1)
        while not self._stop.is_set():
            try:
                connection, _ = self._listener.accept()
                break
            except socket.timeout:
                continue
        else:
            return
        self._listener.close()  # one connection only: a reconnect is refused, not left hanging
        if self.tls is not None:
            connection.settimeout(5)
            try:
                connection = self.tls.wrap_socket(connection, server_side=True)
            except (ssl.SSLError, OSError):
                connection.close()
                return
        with connection:
            connection.settimeout(0.1)
            replies = self._frames()
            while True:
                header = self._read(connection, 12)
                if len(header) < 12:
                    return
                _, length, request_id = struct.unpack("<III", header)
                payload = self._read(connection, length)
                self.received += header + payload
                if self.behaviour == self.HANG_UP:
                    self._stop.wait(0.1)  # calls sent right after the first are in flight by then
                    return
                if self.behaviour == self.SILENT or not replies:
                    break
                reply = replies.pop(0)
                connection.sendall(reply[:12] + struct.pack("<I", request_id) + reply[16:])
            self._stop.wait()
