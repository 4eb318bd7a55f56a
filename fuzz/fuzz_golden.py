"""The golden loader fuzzed for a while: every input that ends in anything but queries or
the plugin's own error is a finding, kept as a small file to reproduce it.

    python fuzz/fuzz_golden.py --minutes 35            # the long run
    python fuzz/fuzz_golden.py --minutes 1 --seed 7    # a quick look

The inputs are the test suite's (``tests/golden_strategies.py``): valid golden sets,
then broken mappings, broken text and bytes, YAML features, alias bombs, deep nesting
and random bytes, drawn by hypothesis in chunks of ``--chunk`` examples, each chunk
with its own seed, until the wall-clock budget is spent. The outcome of each input is
checked by ``golden_strategies.check_load`` (a load past 10 s is a hang; memory is
capped with ``--memory-gb`` so a blow-up is a MemoryError, not a dead machine).

Failures are told apart by exception type and where they were raised; each distinct
one is shrunk (lines, then characters, dropped while the same failure remains) and
written to ``fuzz/findings/`` (gitignored): the input, and a ``.txt`` with its
traceback. At the end: inputs tried, time taken, and every distinct failure.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import resource
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from golden_strategies import SHOWN, check_load, golden_files, max_grades  # noqa: E402
from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

FINDINGS = ROOT / "fuzz" / "findings"
SHRINK_SECONDS = 30.0


@dataclass
class Finding:
    key: str
    summary: str
    suffix: str
    data: bytes
    max_grade: int
    trace: str
    count: int = 1


def failure_key(exc: BaseException) -> tuple[str, str]:
    """What tells failures apart: the type, the innermost frame of ours or the loader's,
    and for a broken promise (an AssertionError) the message with its values blanked."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "pytest_retrieval" in f.filename or "golden_" in f.filename]
    frame = (ours or frames or [None])[-1]
    where = f"{Path(frame.filename).name}:{frame.lineno}" if frame else "?"
    message = str(exc).split("\n", 1)[0]
    shape = re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "_", message)[:70]
    detail = shape if isinstance(exc, AssertionError) else ""
    key = f"{type(exc).__name__} at {where} {detail}".strip()
    return key, f"{type(exc).__name__} at {where}: {message[:200]}"


class Fuzzer:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.tried = 0
        self.findings: dict[str, Finding] = {}

    def outcome(self, suffix: str, data: bytes, max_grade: int) -> tuple[str, str, str] | None:
        """None when the load kept its promises; else the failure's key, summary, traceback."""
        path = self.folder / f"input{suffix}"
        path.write_bytes(data)
        try:
            check_load(path, max_grade, SHOWN + suffix)
        except Exception as exc:  # every other outcome is a finding: that is the point
            key, summary = failure_key(exc)
            return key, summary, "".join(traceback.format_exception(exc))
        return None

    def one(self, suffix: str, data: bytes, max_grade: int) -> None:
        self.tried += 1
        failed = self.outcome(suffix, data, max_grade)
        if failed is None:
            return
        key, summary, trace = failed
        known = self.findings.get(key)
        if known is None:
            self.findings[key] = Finding(key, summary, suffix, data, max_grade, trace)
            print(f"  new failure: {summary}", flush=True)
        else:
            known.count += 1
            if len(data) < len(known.data):
                known.data, known.suffix, known.max_grade = data, suffix, max_grade

    def chunk(self, examples: int, chunk_seed: int, end: float) -> None:
        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @seed(chunk_seed)
        @given(drawn=golden_files(), max_grade=max_grades)
        def body(drawn: tuple[str, bytes], max_grade: int) -> None:
            if time.monotonic() < end:
                self.one(drawn[0], drawn[1], max_grade)

        body()

    def shrink(self, finding: Finding) -> None:
        """Drop lines, then runs of bytes, while the same failure remains (bounded in time)."""
        stop = time.monotonic() + SHRINK_SECONDS
        data = finding.data

        def same(candidate: bytes) -> bool:
            failed = self.outcome(finding.suffix, candidate, finding.max_grade)
            return failed is not None and failed[0] == finding.key

        for unit in ("lines", "bytes"):
            size = max(len(data) // 2, 1)
            while size >= 1 and time.monotonic() < stop:
                parts = data.split(b"\n") if unit == "lines" else None
                pieces = parts if parts is not None else [data[i : i + 1] for i in range(len(data))]
                joiner = b"\n" if unit == "lines" else b""
                changed = False
                start = 0
                while start < len(pieces) and time.monotonic() < stop:
                    candidate = joiner.join(pieces[:start] + pieces[start + size :])
                    if len(candidate) < len(data) and same(candidate):
                        data, pieces, changed = (
                            candidate,
                            pieces[:start] + pieces[start + size :],
                            True,
                        )
                    else:
                        start += size
                if not changed:
                    size //= 2
        failed = self.outcome(finding.suffix, data, finding.max_grade)
        if failed is not None and failed[0] == finding.key:
            finding.data, finding.trace = data, failed[2]
            finding.summary = failed[1]

    def write(self, finding: Finding) -> Path:
        FINDINGS.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256(finding.key.encode()).hexdigest()[:10]
        slug = re.sub(r"[^A-Za-z0-9]+", "-", finding.key.split(" at ")[0]).strip("-")
        path = FINDINGS / f"{slug}-{digest}{finding.suffix}"
        path.write_bytes(finding.data)
        path.with_suffix(path.suffix + ".txt").write_text(
            f"{finding.summary}\nseen {finding.count} times; max_grade={finding.max_grade}\n"
            f"reproduce: load_golden_file(Path({str(path)!r}), max_grade={finding.max_grade})\n\n"
            f"{finding.trace}",
            encoding="utf-8",
        )
        return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=35.0, help="wall-clock budget")
    parser.add_argument("--seed", type=int, default=0, help="the first chunk's seed")
    parser.add_argument("--chunk", type=int, default=500, help="examples per hypothesis run")
    parser.add_argument("--memory-gb", type=float, default=4.0, help="address-space cap")
    args = parser.parse_args(argv)
    cap = int(args.memory_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    began = time.monotonic()
    end = began + args.minutes * 60
    last = began
    with tempfile.TemporaryDirectory(prefix="fuzz-golden-") as folder:
        fuzzer = Fuzzer(Path(folder))
        chunk_seed = args.seed
        while time.monotonic() < end:
            fuzzer.chunk(args.chunk, chunk_seed, end)
            chunk_seed += 1
            if time.monotonic() - last >= 30 or time.monotonic() >= end:
                last = time.monotonic()
                elapsed = last - began
                print(
                    f"[{elapsed / 60:6.1f} min] {fuzzer.tried} inputs "
                    f"({fuzzer.tried / elapsed:.0f}/s), {len(fuzzer.findings)} distinct failures, "
                    f"next seed {chunk_seed}",
                    flush=True,
                )
        elapsed = time.monotonic() - began
        print(
            f"\nran {elapsed / 60:.1f} min: {fuzzer.tried} inputs, "
            f"seeds {args.seed}..{chunk_seed - 1}"
        )
        print(f"{len(fuzzer.findings)} distinct failures")
        for finding in sorted(fuzzer.findings.values(), key=lambda f: -f.count):
            fuzzer.shrink(finding)
            path = fuzzer.write(finding)
            print(
                f"- {finding.summary}\n  seen {finding.count} times; "
                f"reproducer ({len(finding.data)} bytes): {path}"
            )
    return 1 if fuzzer.findings else 0


if __name__ == "__main__":
    sys.exit(main())
