#!/usr/bin/env python3
"""Finds import cycles between the files of a Rust crate (the viewer's, by default).

    python3 scripts/import-graph.py [--tests] [--modules] [CRATE_SRC_DIR ...]   (default: viewer/src)

Every `.rs` file under the directory is one module: `lib.rs` or `main.rs` the crate root,
`a/mod.rs` and `a.rs` (with its children in `a/`) the module `a`, `a/b.rs` the module `a::b`.
An inline `mod name { ... }` block is part of its file: what it imports counts as its file's
imports, and `super::` inside it names the file's own module.

Test code is left out unless `--tests` is given: an item under `#[cfg(test)]` (a `mod tests`
block, a `use`, a function) and a file that is a `#[cfg(test)] mod x;` are not read, since
what tests import (a helper of another module's tests, say) is not part of the structure the
crate is built with.

A file uses another when a path in its code names an item in the other file:
  * `use` declarations, groups expanded (`use super::{a, b::c}`), `self` in a group naming
    the module itself (`use crate::panels::{self, Trace}`), globs (`use super::*`);
  * paths in code: `crate::x::y`, `super::x`, `self::x`, and `m::x` where `m` is a module
    declared in the current module (`mod m;` or an inline `mod m {`), as app.rs does with
    `loading::load_first(p)`.
A path is resolved from the module it appears in (`super::super::x` from `app::judge::steady`
is `app::x`) and names the file of its longest prefix that is a module: `crate::app::HiDpi`
is app.rs, `super::dom::mount` is app/dom.rs. An item re-exported by a module (`pub use`)
counts as that module's, as the compiler sees the path. Visibility paths (`pub(in crate::a)`)
and comments, strings and doc links are not uses. Paths through external crates
(`nines_core::...`, `leptos::...`) and macros defined with `macro_rules!` are not followed.
`#[path]` attributes are not supported (the crates of nines use none).

With `--modules` the nodes are the crate's top-level modules instead of its files: `a.rs`,
`a/mod.rs` and every file under `a/` are the one module `a` (the crate root is one more): the files of one top-level module may
use each other (a folder's files their parent's items, as Rust's facade modules do), while no
two top-level modules may use each other, through any of their files.

Prints each strongly connected component of more than one file (a set of files each of which
reaches every other through uses), with the uses inside it, and exits 1 if there is any; else
prints how many files and uses it read and exits 0.
"""

import os
import re
import sys

from rustsrc import blank_code, matching_brace

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
USE_RE = re.compile(r"\buse\s+([^;]+);")
# a path of two segments or more, in code (not preceded by `::`, so that each path is read
# from its first segment)
PATH_RE = re.compile(r"(?<![A-Za-z0-9_:])(" + IDENT + r"(?:\s*::\s*" + IDENT + r")+)")
VIS_RE = re.compile(r"\bpub\s*\(\s*in\s+[^)]*\)")
INLINE_MOD_RE = re.compile(r"\bmod\s+(" + IDENT + r")\s*\{")
DECL_MOD_RE = re.compile(r"\bmod\s+(" + IDENT + r")\s*;")
CFG_TEST_RE = re.compile(r"#\[cfg\(test\)\]")
ATTR_RE = re.compile(r"\s*#\[[^\]]*\]")


def blank_tests(code):
    """The code with every item under `#[cfg(test)]` blanked out, and the names of the
    modules declared test-only without a body (`#[cfg(test)] mod tests;`)."""
    test_mods = set()
    out = code
    for m in CFG_TEST_RE.finditer(code):
        start, at = m.start(), m.end()
        while True:  # further attributes of the same item
            a = ATTR_RE.match(code, at)
            if not a:
                break
            at = a.end()
        semi, brace = code.find(";", at), code.find("{", at)
        if semi >= 0 and (brace < 0 or semi < brace):
            end = semi
            d = DECL_MOD_RE.match(code, at + len(code[at:]) - len(code[at:].lstrip()))
            if d:
                test_mods.add(d.group(1))
        elif brace >= 0:
            end = matching_brace(code, brace)
        else:
            continue
        out = out[:start] + re.sub(r"[^\n]", " ", out[start:end + 1]) + out[end + 1:]
    return out, test_mods


def module_of_file(rel):
    """The module path (a tuple) of a file, relative to the crate's source directory."""
    parts = rel[:-3].split(os.sep)
    if parts in (["lib"], ["main"]):
        return ()
    if parts[-1] == "mod":
        parts = parts[:-1]
    return tuple(parts)


def expand_use(tree):
    """The paths of a `use` tree (`a::{b, c::{d, e}}` -> a::b, a::c::d, a::c::e), each a list
    of segments; `self` in a group is dropped (it names the group's module), `as x` too."""
    tree = re.sub(r"\s+", " ", tree).strip()
    out = []

    def walk(prefix, s):
        s = s.strip()
        if not s:
            return
        brace = s.find("{")
        if brace >= 0 and s.endswith("}"):
            head = [p.strip() for p in s[:brace].split("::") if p.strip()]
            inner = s[brace + 1:-1]
            depth, start = 0, 0
            for k, ch in enumerate(inner):
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                elif ch == "," and depth == 0:
                    walk(prefix + head, inner[start:k])
                    start = k + 1
            walk(prefix + head, inner[start:])
            return
        s = re.sub(r"\s+as\s+" + IDENT + r"$", "", s)
        segs = [p.strip() for p in s.split("::") if p.strip()]
        if segs and segs[-1] in ("self", "*"):
            segs = segs[:-1]
        if prefix + segs:
            out.append(prefix + segs)

    walk([], tree.lstrip(":"))
    return out


class Crate:
    def __init__(self, src, tests=False):
        self.src = src
        self.files = {}  # module path -> file (relative), inline modules included
        self.children = {}  # module path -> names of the modules declared in it
        self.code = {}
        test_only = set()  # module paths of test-only files
        for dirpath, dirnames, filenames in os.walk(src):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(".rs"):
                    path = os.path.join(dirpath, name)
                    rel = os.path.relpath(path, src)
                    with open(path, encoding="utf-8") as f:
                        code = VIS_RE.sub(lambda m: " " * len(m.group(0)), blank_code(f.read()))
                    if not tests:
                        code, mods = blank_tests(code)
                        test_only.update(module_of_file(rel) + (name,) for name in mods)
                    self.code[rel] = code
                    self.files[module_of_file(rel)] = rel
        for mod in list(self.files):
            if any(mod[:k] in test_only for k in range(1, len(mod) + 1)):
                del self.code[self.files.pop(mod)]
        self.inline = {}  # file -> [(start, end, module path)]
        for rel, code in self.code.items():
            base = module_of_file(rel)
            self.inline[rel] = []
            for m in INLINE_MOD_RE.finditer(code):
                end = matching_brace(code, m.end() - 1)
                self.inline[rel].append((m.start(), end, m.group(1)))
        for rel, code in self.code.items():
            base = module_of_file(rel)
            for start, end, name in self.inline[rel]:
                mod = self.module_at(rel, start) + (name,)
                self.files[mod] = rel
            for m in list(DECL_MOD_RE.finditer(code)) + list(INLINE_MOD_RE.finditer(code)):
                self.children.setdefault(self.module_at(rel, m.start()), set()).add(m.group(1))

    def module_at(self, rel, pos):
        """The module whose code is at `pos` of a file (inside its inline modules)."""
        mod = module_of_file(rel)
        for start, end, name in sorted(self.inline[rel]):
            if start < pos <= end and code_after_brace(self.code[rel], start) < pos:
                mod = mod + (name,)
        return mod

    def resolve(self, here, segs):
        """The file a path names, read from module `here`, or None (an external crate)."""
        if segs[0] == "crate":
            mod, rest = (), segs[1:]
        elif segs[0] in ("super", "self"):
            mod, rest = here, segs
            while rest and rest[0] in ("super", "self"):
                if rest[0] == "super":
                    mod = mod[:-1]
                rest = rest[1:]
        elif segs[0] in self.children.get(here, ()):
            mod, rest = here, segs
        else:
            return None
        full = mod + tuple(rest)
        for k in range(len(full), -1, -1):
            if full[:k] in self.files:
                return self.files[full[:k]]
        return None

    def uses(self):
        """(from file, to file, path text) for every use between two files."""
        out = []
        for rel, code in self.code.items():
            spans = []
            for m in USE_RE.finditer(code):
                spans.append((m.start(), m.end()))
                here = self.module_at(rel, m.start())
                for segs in expand_use(m.group(1)):
                    to = self.resolve(here, segs)
                    if to and to != rel:
                        out.append((rel, to, "::".join(segs)))
            for m in PATH_RE.finditer(code):
                if any(a <= m.start() < b for a, b in spans):
                    continue
                segs = [p.strip() for p in m.group(1).split("::")]
                to = self.resolve(self.module_at(rel, m.start()), segs)
                if to and to != rel:
                    out.append((rel, to, "::".join(segs)))
        return out


def code_after_brace(code, start):
    return code.find("{", start)


def components(nodes, edges):
    """Tarjan's strongly connected components of a graph (iterative)."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(sorted(comp))
    return comps


def top_module(rel):
    """The top-level module a file belongs to (`--modules`): `a.rs`, `a/mod.rs`, `a/b/c.rs`
    are `a`; `lib.rs` and `main.rs` the crate root."""
    first = rel.split("/")[0]
    if first in ("lib.rs", "main.rs"):
        return "(crate root)"
    return first[:-3] if first.endswith(".rs") else first


def check(src, tests, modules=False):
    crate = Crate(src, tests)
    uses = crate.uses()
    node = top_module if modules else (lambda rel: rel)
    edges, names = {}, {}
    for a, b, path in uses:
        a, b = node(a), node(b)
        if a == b:
            continue
        edges.setdefault(a, set()).add(b)
        names.setdefault((a, b), set()).add(path)
    nodes = sorted({node(f) for f in crate.code})
    what = "modules" if modules else "files"
    cycles = [c for c in components(nodes, edges) if len(c) > 1]
    pairs = sum(len(v) for v in edges.values())
    if not cycles:
        print(f"{src}: no import cycles ({len(nodes)} {what}, {pairs} {what[:-1]}-to-{what[:-1]} uses)")
        return 0
    for c in sorted(cycles, key=len, reverse=True):
        print(f"{src}: a cycle of {len(c)} {what}:")
        members = set(c)
        for a in c:
            for b in sorted(edges.get(a, ()) & members):
                shown = sorted(names[(a, b)])
                more = f", +{len(shown) - 4} more" if len(shown) > 4 else ""
                print(f"  {a} -> {b}  ({', '.join(shown[:4])}{more})")
    return 1


def main(argv):
    tests = "--tests" in argv[1:]
    modules = "--modules" in argv[1:]
    dirs = [a for a in argv[1:] if a not in ("--tests", "--modules")] or ["viewer/src"]
    status = 0
    for d in dirs:
        if not os.path.isdir(d):
            print(f"{d}: not a directory", file=sys.stderr)
            return 2
        status |= check(d.rstrip("/"), tests, modules)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
