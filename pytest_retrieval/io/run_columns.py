"""A block of a TREC run file read as columns, with whole-list operations.

Pure. A run file of a large evaluation holds millions of lines (100,000 queries x
100 results is ten million); reading them one at a time costs a few microseconds
each in Python. Nearly every such file is plain: ASCII, one space (or tab) between
six fields, a digit-only rank, a numeric score, no comments. :func:`plain_columns`
reads a block of such lines with operations that run in C (split the block once,
slice the columns, convert the scores) and checks at the same speed that every line
has exactly six fields; a block that is not plain in any way returns None, and the
reader goes through it line by line, where every problem is named with its line.
The reader then holds each query's document ids joined in one string
(:mod:`.joined_ids`) and its scores in an array, so a block's strings live only as
long as the block.
"""

from __future__ import annotations

from typing import NamedTuple

# printable ASCII but '#' (a comment, or an id the line-by-line reader takes apart), space, \n
_PLAIN_BYTES = bytes(b for b in range(0x21, 0x7F) if b != ord("#")) + b" \n"
FIELDS = 6  # qid Q0 docno rank score tag
_STRIDE = FIELDS + 1  # a line's fields, then its end as a token of its own


class Columns(NamedTuple):
    """A block's data lines as columns, one entry per line, in file order."""

    qids: list[str]
    docs: list[str]
    scores: list[float]
    tags: list[str]


def _normalised(block: bytes) -> bytes | None:
    """The block with tabs as spaces, CRLF as LF (white space alike to trec_eval) and a
    line break at its end, or None when it holds any byte a plain line does not."""
    if b"\t" in block:
        block = block.replace(b"\t", b" ")
    if b"\r" in block:
        block = block.replace(b"\r\n", b"\n")
    if block.translate(None, _PLAIN_BYTES):
        return None  # non-ASCII, control characters, '#', other white space
    return block if block.endswith(b"\n") else block + b"\n"


def _tokens(block: bytes) -> list[str] | None:
    """Every line's six fields and then its end ("\\n", one shared object) as tokens, or
    None unless every line is six fields with one space between them.

    A line break surrounded by spaces splits off as a token of its own, so a plain block
    is tokens in steps of seven, each seventh one a line end. Anything else shows:
    runs of white space, blank lines and blanks at a line's ends as two spaces in a row
    (or a space first); fewer or more fields as a line end out of step."""
    lines = block.count(b"\n")
    spaced = block.replace(b"\n", b" \n ")
    if spaced.startswith(b" ") or b"  " in spaced:
        return None
    tokens = spaced.decode("ascii").split(" ")
    tokens.pop()  # what follows the last line end: nothing
    if len(tokens) != _STRIDE * lines or tokens[FIELDS::_STRIDE].count("\n") != lines:
        return None
    return tokens


def plain_columns(block: bytes) -> Columns | None:
    """The columns of a block of plain run lines (see the module); None for any other."""
    normalised = _normalised(block)
    tokens = None if normalised is None else _tokens(normalised)
    if tokens is None:
        return None
    if not "".join(tokens[3::_STRIDE]).isdigit():
        return None  # a signed or non-integer rank: the line-by-line reader names it
    texts = tokens[4::_STRIDE]
    if "_" in "".join(texts):
        return None  # "1_000": float() reads it, trec_eval's atof does not; named line by line
    try:
        scores = list(map(float, texts))
    except ValueError:
        return None
    total = sum(scores)
    if total - total != 0.0:
        return None  # an infinite or NaN score (or a sum that overflows): read line by line
    return Columns(tokens[0::_STRIDE], tokens[2::_STRIDE], scores, tokens[5::_STRIDE])


__all__ = ["FIELDS", "Columns", "plain_columns"]
