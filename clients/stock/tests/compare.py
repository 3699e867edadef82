"""Comparing one door's answer with the fast port's (clients/python's results, `fastport.py`)."""

from __future__ import annotations

from google.protobuf.json_format import MessageToDict


def fields(message, *leave_out: str) -> dict:
    """A message's fields as clients/python's results hold them: proto names, enums as numbers,
    defaults included; `error` (absent in an answer) and `leave_out` dropped."""
    found = MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True,
                          use_integers_for_enums=True)
    return without(found, *leave_out)


def without(answer: dict, *leave_out: str) -> dict:
    """`answer` (proto3 JSON, proto names) without `error` and `leave_out`."""
    return {name: value for name, value in answer.items() if name not in ("error", *leave_out)}


def same_fields(grpc_answer: dict, fast_answer: dict) -> None:
    """Every field gRPC answered has the fast port's value (int64s are text in proto's JSON)."""
    for name, value in grpc_answer.items():
        assert name in fast_answer, f"the fast port's answer has no {name}"
        expected = fast_answer[name]
        if isinstance(value, str) and isinstance(expected, int):
            expected = str(expected)
        if isinstance(value, list) and value and isinstance(value[0], dict):
            assert len(value) == len(expected), name
            for item, other in zip(value, expected):
                same_fields(item, other)
        else:
            assert value == expected, f"{name}: gRPC {value!r}, fast port {expected!r}"
