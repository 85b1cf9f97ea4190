"""Validates containerlab topology files against containerlab's JSON Schema (tests/deliverables/exports.rs).

Usage: clab_validate.py SCHEMA TOPOLOGY... Prints `OK <file>` per valid file and every error
of an invalid one; exits 1 when any file is invalid. The topology is read as YAML (PyYAML), as
containerlab's editor integration does, and checked with jsonschema's validator for the schema's
own draft. containerlab's schema is written for ECMA-262 patterns (`\\p{L}` in its address
patterns); they are run with the `regex` module, which has Unicode property classes, instead of
Python's `re`, which refuses them.
"""

import json
import sys

import jsonschema
import regex
import yaml
from jsonschema import ValidationError


def pattern(validator, patrn, instance, schema):
    """`pattern` as jsonschema's own, with an ECMA-262-capable regex engine."""
    if validator.is_type(instance, "string") and not regex.search(patrn, instance):
        yield ValidationError(f"{instance!r} does not match {patrn!r}")


def pattern_properties(validator, patterns, instance, schema):
    """`patternProperties` as jsonschema's own, with the same engine."""
    if not validator.is_type(instance, "object"):
        return
    for patrn, subschema in patterns.items():
        for k, v in instance.items():
            if regex.search(patrn, k):
                yield from validator.descend(v, subschema, path=k, schema_path=patrn)


def main() -> int:
    schema = json.load(open(sys.argv[1], encoding="utf-8"))
    base = jsonschema.validators.validator_for(schema)
    cls = jsonschema.validators.extend(
        base, {"pattern": pattern, "patternProperties": pattern_properties}
    )
    validator = cls(schema)
    bad = 0
    for path in sys.argv[2:]:
        # libyaml's safe loader when PyYAML has it (the pure-Python one takes seconds on the
        # larger examples); the same YAML either way.
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        doc = yaml.load(open(path, encoding="utf-8"), Loader=loader)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        if errors:
            bad += 1
            for e in errors[:20]:
                print(f"INVALID {path}: {'/'.join(map(str, e.path))}: {e.message}")
        else:
            print(f"OK {path}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
