#!/usr/bin/env python3
"""Reads `go test -json` on stdin, prints the test output as `go test -v` would, and after it a
digest: every failed test with the error lines it printed. A failing live run prints hundreds of
lines after the failure itself (later suites, the cluster going down), and CI shows only the tail:
the digest puts the reason there. Exits 1 when a test or package failed, 0 otherwise."""
import json
import re
import sys

# The lines a test writes through t.Error/t.Fatal/t.Log: "    file_test.go:123: message".
LOCATED = re.compile(r"^\s+\w+\.go:\d+: ")
PER_TEST = 40  # lines kept per failed test; the full log has the rest


def main() -> int:
    lines: dict[str, list[str]] = {}
    failed: list[str] = []
    package_failed = False
    for raw in sys.stdin:
        try:
            event = json.loads(raw)
        except ValueError:
            sys.stdout.write(raw)  # build errors and the like come as plain text
            continue
        action, test = event.get("Action"), event.get("Test")
        if action == "output":
            text = event.get("Output", "")
            sys.stdout.write(text)
            sys.stdout.flush()
            if test:
                lines.setdefault(test, []).append(text.rstrip("\n"))
        elif action == "fail":
            if test:
                failed.append(test)
            else:
                package_failed = True
    # A parent fails with its failed subtests: report the leaves, whose lines say why.
    leaves = [t for t in failed if not any(o.startswith(t + "/") for o in failed)]
    if leaves:
        print("\n=== failure digest: the failed tests and the lines they printed ===")
        for test in leaves:
            said = [l for l in lines.get(test, []) if LOCATED.match(l)]
            print(f"--- FAIL: {test}")
            for l in said[-PER_TEST:]:
                print(l)
            if not said:
                print("    (no located lines; see the full log above)")
    return 1 if failed or package_failed else 0


if __name__ == "__main__":
    sys.exit(main())
