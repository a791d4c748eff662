#!/usr/bin/env python3
"""Lists every function in the workspace longer than 120 lines without a reason beside it.

A function's length counts from its `fn` line to its closing brace. A function is allowed to
be longer when the lines directly above it (its doc comment and attributes) hold a comment
starting `// long:` that gives the reason. Test code is skipped: files named tests.rs,
`#[cfg(test)]` modules and `#[test]` functions.

Prints `path:line fn name (N lines)` for each function over the limit; exits 1 if there is
any, 0 otherwise.
"""

import os
import re
import sys

from rustsrc import blank_code, matching_brace

LIMIT = 120
ROOTS = ["shared/src", "collector/src", "viewer/src", "worker/src", "xtask/src"]

FN_RE = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")
MOD_RE = re.compile(r"\bmod\s+[A-Za-z_][A-Za-z0-9_]*\s*\{")


def attrs_above(lines, idx):
    """The doc comment, attribute and comment lines directly above line `idx` (0-based)."""
    above = []
    j = idx - 1
    while j >= 0:
        s = lines[j].strip()
        if s.startswith("//") or s.startswith("#[") or s.startswith("#!["):
            above.append(s)
            j -= 1
        elif above and not s.startswith(("fn ", "pub")) and s and not s.endswith((";", "{", "}")):
            # continuation of a multi-line attribute
            above.append(s)
            j -= 1
        else:
            break
    return above


def scan(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    code = blank_code(text)
    lines = text.split("\n")
    line_starts = [0]
    for ln in lines:
        line_starts.append(line_starts[-1] + len(ln) + 1)

    def line_of(pos):
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo

    # Ranges of test code: #[cfg(test)] modules and #[test] functions.
    skipped = []
    for m in re.finditer(r"#\[\s*cfg\s*\(\s*test\s*\)\s*\]", code):
        mod = MOD_RE.search(code, m.end())
        if mod and not code[m.end():mod.start()].strip().count(";"):
            brace = mod.end() - 1
            skipped.append((m.start(), matching_brace(code, brace)))
    for m in re.finditer(r"#\[\s*(tokio::)?test\b[^\]]*\]", code):
        fn = FN_RE.search(code, m.end())
        if fn:
            brace = code.find("{", fn.end())
            if brace >= 0:
                skipped.append((m.start(), matching_brace(code, brace)))

    found = []
    for m in FN_RE.finditer(code):
        if any(a <= m.start() <= b for a, b in skipped):
            continue
        # The body's opening brace: the first `{` after the signature, unless a `;` comes first
        # (a declaration in a trait or an extern block).
        k = m.end()
        depth_paren = 0
        body = -1
        while k < len(code):
            ch = code[k]
            if ch in "([":
                depth_paren += 1
            elif ch in ")]":
                depth_paren -= 1
            elif ch == ";" and depth_paren <= 0:
                break
            elif ch == "{" and depth_paren <= 0:
                body = k
                break
            k += 1
        if body < 0:
            continue
        end = matching_brace(code, body)
        first, last = line_of(m.start()), line_of(end)
        length = last - first + 1
        if length <= LIMIT:
            continue
        if any(s.startswith("// long:") for s in attrs_above(lines, first)):
            continue
        found.append((path, first + 1, m.group(1), length))
    return found


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    os.chdir(root)
    found = []
    for top in ROOTS:
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(".rs") or name == "tests.rs":
                    continue
                found.extend(scan(os.path.join(dirpath, name)))
    found.sort(key=lambda f: -f[3])
    for path, line, name, length in found:
        print(f"{path}:{line} fn {name} ({length} lines)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
