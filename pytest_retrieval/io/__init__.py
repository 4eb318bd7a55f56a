"""File formats: golden YAML/JSONL, TREC, BEIR, baselines, reports."""
