#!/usr/bin/env python3
"""Calls of functions whose name starts with a prefix, counted from a callgrind profile.

    callgrind_calls.py PROFILE [PREFIX ...]     (default: "operator new(")

profile-callgrind.sh counts the C++ heap allocations of a run this way: OpenSSL allocates
through malloc, never operator new, so the count is the server's own (Asio, Beast, ours),
which the request path must bring to zero (docs/performance.md)."""
import re
import sys

# "fn=(12) name", "cfn=(12) name" or "cfn=(12)" once the name was given (name compression).
NAMED = re.compile(r"^c?fn=\((\d+)\)(?: (.*))?$")
CALLS = re.compile(r"^calls=(\d+)")


def count(path: str, prefixes: list[str]) -> int:
    names: dict[str, str] = {}
    callee = None
    total = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = NAMED.match(line)
            if m:
                ident, name = m.group(1), m.group(2)
                if name is not None:
                    names[ident] = name
                callee = ident if line.startswith("cfn=") else None
                continue
            m = CALLS.match(line)
            if m and callee is not None:
                if names.get(callee, "").startswith(tuple(prefixes)):
                    total += int(m.group(1))
                callee = None
    return total


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print(count(sys.argv[1], sys.argv[2:] or ["operator new("]))
