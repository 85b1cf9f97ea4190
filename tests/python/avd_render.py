"""Render EOS configs with Arista AVD (pyavd) from structured configs.

Input (stdin): a JSON object {name: structured_config}. Each structured config is validated
against AVD's eos_cli_config_gen schema (pyavd.validate_structured_config: unknown keys, wrong
types and values are errors) and rendered with pyavd.get_device_config, AVD's own templates.

Output (stdout): a JSON object {name: {"config": text} | {"errors": [messages]}}.
"""

import json
import sys

import pyavd


def main():
    cases = json.load(sys.stdin)
    out = {}
    for name, structured in cases.items():
        result = pyavd.validate_structured_config(structured)
        problems = [
            f"{'.'.join(map(str, v.path))}: {v.message}" for v in result.validation_result.violations
        ]
        if result.validated_data is None or problems:
            out[name] = {"errors": problems or ["validation failed"]}
            continue
        out[name] = {"config": pyavd.get_device_config(result.validated_data)}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
