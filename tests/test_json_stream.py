"""The streamed JSON writer gives, piece by piece, the text json.dumps(indent=2) gives."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from pytest_retrieval.io.json_stream import Compact, Streamed, chunks

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def streamed(value: object, wrap: st.DataObject) -> object:
    """``value`` with some of its objects (at any depth) made Streamed; an object holding
    a Streamed member is Streamed itself (only a Streamed object holds Streamed values)."""
    if isinstance(value, dict):
        members = [(k, streamed(v, wrap)) for k, v in value.items()]
        inner = any(isinstance(v, Streamed) for _, v in members)
        if inner or wrap.draw(st.booleans()):
            return Streamed(lambda: iter(members))
        return dict(members)
    return value


def plain(value: object) -> object:
    if isinstance(value, Streamed):
        return {k: plain(v) for k, v in value.members()}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


@given(VALUES, st.data())
def test_streamed_text_equals_json_dumps(value: object, data: st.DataObject) -> None:
    top = streamed(value, data)
    text = "".join(chunks(top))
    assert text == json.dumps(plain(top), indent=2, ensure_ascii=False)


def test_members_are_made_only_as_they_are_written() -> None:
    made: list[str] = []

    def members():  # type: ignore[no-untyped-def]
        for key in ("a", "b"):
            made.append(key)
            yield key, {"value": key}

    pieces = chunks(Streamed(members))
    assert next(pieces) == '{\n  "a": ' and made == ["a"]
    assert "".join(pieces) == '{\n    "value": "a"\n  },\n  "b": {\n    "value": "b"\n  }\n}'
    assert "".join(chunks(Streamed(lambda: iter(())))) == "{}"


@given(VALUES)
def test_a_compact_value_is_one_line_of_json(value: object) -> None:
    text = "".join(chunks(Streamed(lambda: iter([("q1", Compact(value))]))))
    head = '{\n  "q1": '
    assert text == head + json.dumps(value, ensure_ascii=False) + "\n}"
    assert json.loads(text) == {"q1": value}
