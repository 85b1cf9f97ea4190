"""Time Arista AVD (pyavd) rendering EOS configs from structured configs, for the side-by-side
bench (`cargo bench --bench scale -- --avd`).

Input (stdin): a JSON object {name: structured_config}. Each is validated once
(pyavd.validate_structured_config), then rendered with pyavd.get_device_config (AVD's
eos_cli_config_gen templates). Import time is not counted.

Output (stdout): {"devices": n, "validate_s": total, "render_s": total, "lines": total config
lines} — times from time.perf_counter, summed over the devices.
"""

import json
import sys
import time

import pyavd


def main():
    cases = json.load(sys.stdin)
    validate_s = render_s = 0.0
    lines = 0
    for name, structured in cases.items():
        t0 = time.perf_counter()
        result = pyavd.validate_structured_config(structured)
        t1 = time.perf_counter()
        if result.validated_data is None or result.validation_result.violations:
            sys.exit(f"{name}: AVD rejects the structured config")
        config = pyavd.get_device_config(result.validated_data)
        t2 = time.perf_counter()
        validate_s += t1 - t0
        render_s += t2 - t1
        lines += config.count("\n")
    json.dump(
        {"devices": len(cases), "validate_s": validate_s, "render_s": render_s, "lines": lines},
        sys.stdout,
    )


if __name__ == "__main__":
    main()
