"""A scripted stand-in for the server, for what a real one never does on demand: stay silent,
hang up mid-call, or answer with bytes that break the protocol. Serves one connection on a thread
and reads one request frame before it acts; later connection attempts are refused."""

from __future__ import annotations

import socket
import struct
import threading


class FakeServer:
    SILENT = "silent"
    HANG_UP = "hang_up"
    REPLY = "reply"

    def __init__(self, behaviour: str, reply: bytes = b"") -> None:
        self.behaviour = behaviour
        self.reply = reply
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
            if not chunk:
                break
            data += chunk
        return data

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
        with connection:
            connection.settimeout(0.1)
            header = self._read(connection, 12)
            if len(header) < 12:
                return
            _, length, request_id = struct.unpack("<III", header)
            self._read(connection, length)
            if self.behaviour == self.HANG_UP:
                self._stop.wait(0.1)  # calls sent right after the first are in flight by then
                return
            if self.behaviour == self.REPLY:
                reply = self.reply[:12] + struct.pack("<I", request_id) + self.reply[16:]
                connection.sendall(reply)
            self._stop.wait()
