"""Validates SARIF logs against the SARIF 2.1.0 JSON Schema (tests/pipeline/machine_output.rs).

Usage: sarif_validate.py SCHEMA LOG... Prints `OK <file>` per valid log and every error of an
invalid one; exits 1 when any log is invalid. The schema is OASIS's (draft-04); jsonschema's
validator for the schema's own draft checks it, with formats (`uri`, `uri-reference`) checked
too where jsonschema knows them.
"""

import json
import sys

import jsonschema


def main() -> int:
    schema = json.load(open(sys.argv[1], encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    bad = 0
    for path in sys.argv[2:]:
        log = json.load(open(path, encoding="utf-8"))
        errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
        if errors:
            bad += 1
            for e in errors:
                print(f"{path}: {'/'.join(map(str, e.path))}: {e.message}")
        else:
            print(f"OK {path}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
