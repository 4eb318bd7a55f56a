"""What a retriever says about itself, and how that changed since the baseline. Pure.

A retriever may describe itself with a ``metadata`` attribute: a mapping of names to
text, numbers or booleans (model name, index version, corpus hash, ...). The plugin reads
it once per configuration (:func:`describe`), records it in the baseline, the reports and
the history log, and the gate names every key that differs from the baseline's
(:func:`differences`): ``fused: index_version 2024-06 → 2024-09``. A difference never
stops the comparison; a new index is what a regression test is for.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .quoting import escaped
from .retrievers import declared_attribute

Scalar = str | int | float | bool
Metadata = dict[str, Scalar]
ATTRIBUTE = "metadata"  # the attribute of the retriever callable that is read
MAX_TEXT = 200  # longer values are cut (with "…"): metadata names a thing, it is no payload


@dataclass(frozen=True)
class MetadataChange:
    """One key of one configuration's metadata that differs from the baseline's."""

    configuration: str
    key: str
    before: Scalar | None  # None: the baseline does not have the key
    after: Scalar | None  # None: this run does not have it

    def text(self) -> str:
        """``index_version 2024-06 → 2024-09`` (``(none)`` for a missing side)."""
        return f"{escaped(self.key)} {shown(self.before)} \u2192 {shown(self.after)}"

    def as_dict(self) -> dict[str, object]:
        return {
            "configuration": self.configuration,
            "key": self.key,
            "baseline": self.before,
            "current": self.after,
        }


def shown(value: Scalar | None) -> str:
    """The value as a message shows it: its control characters escaped (an escape
    sequence would recolour the terminal, a line break split a line)."""
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    return escaped(str(value))


def _python_value(value: object) -> object:
    """numpy's scalars (``int64``, ``float32``, ``bool_``) as the Python value they hold."""
    item = getattr(value, "item", None)
    if type(value).__module__ != "numpy" or not callable(item):
        return value
    try:
        return item()
    except Exception:  # an array of several values: not a scalar
        return value


def _writable(value: int) -> bool:
    """Whether the integer can be written as text (within Python's limit on digits)."""
    try:
        str(value)
    except ValueError:
        return False
    return True


def _scalar(value: object) -> Scalar | None:
    """The value as stored: text (cut to :data:`MAX_TEXT`), a finite number or a bool."""
    value = _python_value(value)
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if _writable(value) else None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        return value if len(value) <= MAX_TEXT else value[: MAX_TEXT - 1] + "\u2026"
    return None


def _shown(value: object) -> str:
    """``repr(value)``, or its type's name when that raises (the user's object's bug)."""
    try:
        return repr(value)
    except Exception:
        return f"<{type(value).__name__}>"


def _got(key: object, value: object) -> str:
    """What an entry left out holds instead: a key that is no text, or the value's kind."""
    if not isinstance(key, str):
        return f"a key of type {type(key).__name__}"
    if isinstance(value, int) and not isinstance(value, bool) and not _writable(value):
        return "an int too long to write as text"
    return type(value).__name__


def parse_metadata(data: object, where: str) -> tuple[Metadata, list[str]]:
    """A mapping of names to scalars, and one problem per entry that is not one."""
    if data is None:
        return {}, []
    if not isinstance(data, Mapping):
        problem = (
            f"{where} must be a mapping of names to text or numbers "
            f"(e.g. {{'model': 'all-MiniLM-L6-v2', 'index_version': '2024-09'}}), "
            f"got {type(data).__name__}: ignored"
        )
        return {}, [problem]
    out: Metadata = {}
    problems: list[str] = []
    for key, value in data.items():
        scalar = _scalar(value)
        if not isinstance(key, str) or scalar is None:
            problems.append(
                f"{where}: entry {_shown(key)} is left out: keys must be text and values text, "
                f"a finite number or a boolean, got {_got(key, value)}"
            )
            continue
        out[key] = scalar
    return dict(sorted(out.items())), problems


def describe(configuration: str, retriever: object) -> tuple[Metadata, list[str]]:
    """The retriever's ``metadata`` attribute, checked, and what was wrong with it.

    Takes the configuration and the retriever (not a query), so it runs once per
    configuration, however the items that use the retriever are cut.
    """
    try:
        data = declared_attribute(retriever, ATTRIBUTE)
    except Exception as exc:  # a property that raises: the run goes on without it
        problem = f"retriever '{configuration}': reading .{ATTRIBUTE} raised {_shown(exc)}: ignored"
        return {}, [problem]
    return parse_metadata(data, f"retriever '{configuration}': .{ATTRIBUTE}")


def differences(
    baseline: Mapping[str, Mapping[str, Scalar]],
    current: Mapping[str, Mapping[str, Scalar]],
    configurations: Sequence[str],
) -> list[MetadataChange]:
    """Every key of the given configurations whose value differs from the baseline's.

    A configuration neither side describes has no change; one only this run (or only the
    baseline) describes shows each of its keys against ``(none)``.
    """
    changes: list[MetadataChange] = []
    for name in configurations:
        before, after = baseline.get(name, {}), current.get(name, {})
        for key in sorted(set(before) | set(after)):
            old, new = before.get(key), after.get(key)
            if old != new or type(old) is not type(new):
                changes.append(MetadataChange(name, key, old, new))
    return changes


def change_lines(changes: Sequence[MetadataChange]) -> list[str]:
    """One line per configuration: ``fused: index_version 2024-06 → 2024-09, model a → b``."""
    by_configuration: dict[str, list[str]] = {}
    for change in changes:
        by_configuration.setdefault(change.configuration, []).append(change.text())
    return [f"{name}: {', '.join(parts)}" for name, parts in by_configuration.items()]
