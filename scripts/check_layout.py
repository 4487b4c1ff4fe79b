#!/usr/bin/env python3
"""Checks the layering rules of README's "Code layout"; exits 1 on a breach.

- Only src/pg includes postgres.h; src/core and kernels/ never do.
- src/pg includes, of the engine's headers, only those in src/core/include.
- The features of src/pg (its folders, and the module gpuops.c) depend on
  each other one way only: the graph of calls between files of different
  features (a call of a function defined, not static, in another file) and
  of includes of another feature's headers has no cycle.  Files of one
  feature may not call each other in a cycle either.
"""
import collections
import glob
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PG = os.path.join(ROOT, "src", "pg")
CORE_INC = os.path.join(ROOT, "src", "core", "include")


def read(path):
    """A file's text without its comments."""
    with open(path, encoding="utf-8") as f:
        return re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)


def feature(path):
    """The feature of a file under src/pg: its first folder, or 'module'."""
    rel = os.path.relpath(path, PG).split(os.sep)
    return rel[0] if len(rel) > 1 else "module"


def cycle_of(graph):
    """Some cycle of graph (a list of nodes), or None."""
    state = {}

    def visit(v, path):
        state[v] = 1
        path.append(v)
        for w in sorted(graph.get(v, ())):
            if state.get(w) == 1:
                return path[path.index(w):] + [w]
            if w not in state:
                found = visit(w, path)
                if found:
                    return found
        path.pop()
        state[v] = 2
        return None

    for v in sorted(graph):
        if v not in state:
            found = visit(v, [])
            if found:
                return found
    return None


def main():
    errors = []
    for pattern in ("src/core/**/*.[ch]", "kernels/*.cu", "kernels/*.cuh"):
        for f in glob.glob(os.path.join(ROOT, pattern), recursive=True):
            if re.search(r'#include\s+"postgres\.h"', read(f)):
                errors.append("%s includes postgres.h" % os.path.relpath(f, ROOT))

    pg_files = sorted(glob.glob(os.path.join(PG, "**", "*.[ch]"), recursive=True))
    public = set(os.listdir(CORE_INC))
    texts = {f: read(f) for f in pg_files}
    for f, s in texts.items():
        for inc in re.findall(r'#include\s+"(gpo[\w]*\.h)"', s):
            if inc not in public:
                errors.append("%s includes the engine's internal %s"
                              % (os.path.relpath(f, ROOT), inc))

    defined = {}
    for f, s in texts.items():
        if not f.endswith(".c"):
            continue
        for m in re.finditer(r"^(gpuops_\w+)\s*\(", s, re.M):
            prev = s[s.rfind("\n", 0, m.start() - 1) + 1:m.start()]
            if "static" not in prev:
                defined[m.group(1)] = f
    calls = collections.defaultdict(set)
    feats = collections.defaultdict(set)
    for f, s in texts.items():
        used = set(re.findall(r"\b(gpuops_\w+)\s*\(", s))
        for name in used:
            g = defined.get(name)
            if g is not None and g != f and f.endswith(".c"):
                calls[f].add(g)
                if feature(f) != feature(g):
                    feats[feature(f)].add(feature(g))
        for inc in re.findall(r'#include\s+"((?:\w+/)+\w+\.h)"', s):
            target = os.path.join(PG, inc)
            if os.path.exists(target) and feature(target) != feature(f):
                feats[feature(f)].add(feature(target))
    found = cycle_of(feats)
    if found:
        errors.append("features depend on each other in a cycle: "
                      + " -> ".join(found))
    found = cycle_of(calls)
    if found:
        errors.append("files call each other in a cycle: "
                      + " -> ".join(os.path.relpath(x, PG) for x in found))

    for e in errors:
        print("layout: " + e, file=sys.stderr)
    if errors:
        return 1
    print("layout: %d files, %d features, no cycle" % (len(pg_files), len(feats)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
