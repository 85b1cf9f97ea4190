"""Reads railyard's YAML and Markdown deliverables with the readers their consumers use
(tests/deliverables/deliverables.rs): PyYAML (YAML 1.1, as NVUE's Python side and most Kubernetes and Slurm
tooling read it; its libyaml parser where built with it) loads every document of a YAML file; markdown-it-py (CommonMark with GFM
tables) parses a Markdown file, and every line of a `|` table must be a row of a parsed table.

stdin: a JSON list of [kind, path] pairs, kind "yaml" or "markdown".
stdout: a JSON list of "path: why" strings, one per file that does not read.
"""

import json
import sys

import yaml
from markdown_it import MarkdownIt


# libyaml's parser reads the same YAML 1.1 as the pure-Python one, twenty times faster.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path):
    with open(path, encoding="utf-8") as f:
        docs = list(yaml.load_all(f, Loader=LOADER))
    if not any(d is not None for d in docs):
        raise ValueError("no YAML document in it")


def read_markdown(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    if not tokens:
        raise ValueError("no Markdown block in it")
    rows = sum(1 for t in tokens if t.type == "tr_open")
    tables = sum(1 for t in tokens if t.type == "table_open")
    # Each table's source is its rows plus the delimiter row: a line that breaks a table
    # (a stray `|`, a short delimiter row) leaves a `|` line outside any parsed row.
    pipe_lines = sum(1 for line in text.splitlines() if line.startswith("|"))
    if pipe_lines != rows + tables:
        raise ValueError(
            f"{pipe_lines} table lines, but {tables} table(s) of {rows} row(s) parsed"
        )


READERS = {"yaml": read_yaml, "markdown": read_markdown}


def main():
    failures = []
    for kind, path in json.load(sys.stdin):
        try:
            READERS[kind](path)
        except Exception as e:  # every reader's failure is the file's failure
            failures.append(f"{path}: {type(e).__name__}: {e}")
    json.dump(failures, sys.stdout)


if __name__ == "__main__":
    main()
