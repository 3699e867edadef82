"""protobuf-c-rpc's default framing (docs/protocol.md, "Framing").

Requests: a 12-byte header (method_index, message_length, request_id; little-endian u32) and the
payload. Responses: a 16-byte header (status_code, method_index, message_length, request_id) and
the payload. This module knows bytes only, no sockets and no messages.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass

from .errors import BadResponseError, FrameError, ServiceFailedError, TooManyPendingError

REQUEST_HEADER = struct.Struct("<III")
RESPONSE_HEADER = struct.Struct("<IIII")
DEFAULT_MAX_RESPONSE_BYTES = 16 << 20


class Method(enum.IntEnum):
    """Method indexes: the declaration order in ``service Entitlements``."""

    IS_SUBSCRIBER = 0
    GET_SUBSCRIPTION = 1
    SUBMIT_PURCHASE = 2
    HEALTH = 3
    AUTHENTICATE = 4
    GET_SUBMISSION = 5
    # Support and admin (issue 28; the "admin" scope): this client does not call them yet.
    LOOK_UP = 6
    GET_TIMELINE = 7
    EXPLAIN = 8
    GRANT = 9
    REVOKE = 10
    REVERIFY = 11
    ERASE_USER = 12


class FrameStatus(enum.IntEnum):
    SUCCESS = 0
    SERVICE_FAILED = 1
    TOO_MANY_PENDING = 2


def encode_request(method_index: int, request_id: int, payload: bytes) -> bytes:
    """One request frame."""
    return REQUEST_HEADER.pack(method_index, len(payload), request_id) + payload


@dataclass(frozen=True, slots=True)
class ResponseFrame:
    status_code: int
    method_index: int
    request_id: int
    payload: bytes

    def refusal(self) -> FrameError | BadResponseError | None:
        """The error for a frame-level refusal; None for status 0."""
        if self.status_code == FrameStatus.SUCCESS:
            return None
        if self.status_code == FrameStatus.SERVICE_FAILED:
            return ServiceFailedError(f"the server could not run method {self.method_index}")
        if self.status_code == FrameStatus.TOO_MANY_PENDING:
            return TooManyPendingError("too many calls in flight on this connection")
        return BadResponseError(f"unknown frame status {self.status_code}")


class ResponseDecoder:
    """Splits a byte stream into response frames, however the bytes arrive.

    A header announcing more than ``max_response_bytes`` raises :class:`BadResponseError` before
    its payload is awaited.
    """

    __slots__ = ("_buffer", "_max")

    def __init__(self, max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES) -> None:
        self._buffer = bytearray()
        self._max = max_response_bytes

    def feed(self, data: bytes) -> list[ResponseFrame]:
        buffer = self._buffer
        buffer += data
        frames: list[ResponseFrame] = []
        offset = 0
        available = len(buffer)
        while available - offset >= 16:
            status, method, length, request_id = RESPONSE_HEADER.unpack_from(buffer, offset)
            if length > self._max:
                raise BadResponseError(f"response of {length} bytes is over the limit of {self._max}")
            end = offset + 16 + length
            if end > available:
                break
            frames.append(ResponseFrame(status, method, request_id, bytes(buffer[offset + 16 : end])))
            offset = end
        if offset:
            del buffer[:offset]
        return frames

    @property
    def buffered(self) -> int:
        """Bytes received and not yet part of a whole frame."""
        return len(self._buffer)
