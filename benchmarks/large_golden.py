"""Loading a large golden file: wall time and peak memory, beside the bare parsers.

Writes a golden YAML file and a golden JSONL file of about ``--mb`` megabytes each
(the same generated queries: graded judgments, tags, filters, expectations), then, each
in a fresh subprocess so that its peak memory (``ru_maxrss``) is its own:

  ours:       ``load_golden_file(path)`` (read, parse with lines, check every field);
  reference:  ``yaml.load(text, Loader=yaml.CSafeLoader)`` / ``[json.loads(l) for l in lines]``
              of the same file (read and decode included, nothing checked).

Wall time (``time.perf_counter``) and CPU time (``time.process_time``: what a loaded
machine does not inflate) of the load alone; peak memory of the whole subprocess.

    python benchmarks/large_golden.py            # 50 MB each
    python benchmarks/large_golden.py --mb 5
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def query_fields(n: int) -> dict[str, object]:
    relevant = {f"doc-{n}-{i}": (3 - i % 4) for i in range(8)}
    return {
        "id": f"q{n:07d}",
        "query": f"which service answers question number {n} about the weather and prices?",
        "category": ("exact-name", "paraphrase", "filtered", "adversarial")[n % 4],
        "tags": ["core", f"batch-{n % 10}"],
        "filters": {"network": "base", "max_price": 0.5},
        "relevant": relevant,
        "expect": {"ndcg@10": 0.5},
    }


def yaml_query(fields: dict[str, object]) -> str:
    relevant = fields["relevant"]
    assert isinstance(relevant, dict)
    lines = [
        f"  - id: {fields['id']}",
        f"    query: {fields['query']}",
        f"    category: {fields['category']}",
        "    tags: [" + ", ".join(map(str, fields["tags"])) + "]",  # type: ignore[call-overload]
        "    filters: {network: base, max_price: 0.5}",
        "    relevant:",
        *(f"      {doc}: {grade}" for doc, grade in relevant.items()),
        "    expect: {ndcg@10: 0.5}",
    ]
    return "\n".join(lines) + "\n"


def write_files(folder: Path, megabytes: float) -> tuple[Path, Path, int]:
    target = int(megabytes * 1_000_000)
    yaml_path, jsonl_path = folder / "large.yaml", folder / "large.jsonl"
    n = 0
    with yaml_path.open("w", encoding="utf-8") as y, jsonl_path.open("w", encoding="utf-8") as j:
        y.write("queries:\n")
        while y.tell() < target or j.tell() < target:
            fields = query_fields(n)
            if y.tell() < target:
                y.write(yaml_query(fields))
            if j.tell() < target:
                j.write(json.dumps(fields) + "\n")
            n += 1
    return yaml_path, jsonl_path, n


def measure(kind: str, path: Path) -> None:
    """In the subprocess: one load, then its time and peak memory as JSON on stdout."""
    began, cpu = time.perf_counter(), time.process_time()
    if kind == "ours":
        from pytest_retrieval.io.golden_file import load_golden_file

        count = len(load_golden_file(path))
    elif path.suffix == ".jsonl":
        lines = path.read_text(encoding="utf-8").splitlines()
        count = len([json.loads(line) for line in lines])
    else:
        import yaml

        count = len(yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)["queries"])
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_mb": peak_mb, "queries": count}))


def run(kind: str, path: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--measure", kind, str(path)],
        check=True,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT)},
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50.0, help="size of each file")
    parser.add_argument("--measure", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args.measure[0], Path(args.measure[1]))
        return
    with tempfile.TemporaryDirectory(prefix="large-golden-") as folder:
        yaml_path, jsonl_path, generated = write_files(Path(folder), args.mb)
        print(f"{generated} queries generated")
        header = f"{'file':<16} {'':<12} {'wall s':>8} {'CPU s':>8} {'peak MB':>8} {'queries':>8}"
        print(header + "\n" + "-" * len(header))
        for path, reference in ((yaml_path, "CSafeLoader"), (jsonl_path, "json.loads")):
            size = f"{path.suffix[1:]} {path.stat().st_size / 1e6:.1f} MB"
            ours, theirs = run("ours", path), run("reference", path)
            for label, row in (("ours", ours), (reference, theirs)):
                print(
                    f"{size:<16} {label:<12} {row['seconds']:>8.2f} {row['cpu']:>8.2f} "
                    f"{row['peak_mb']:>8.0f} {row['queries']:>8.0f}"
                )
            ratios = [ours[key] / theirs[key] for key in ("seconds", "cpu", "peak_mb")]
            print(f"{size:<16} {'ratio':<12} " + " ".join(f"{r:>7.2f}x" for r in ratios))


if __name__ == "__main__":
    main()
