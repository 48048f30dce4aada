#!/usr/bin/env python3
"""Check tflame's numbers for a text call tree against the file's own arithmetic.

    text-arith.py instruments|pmcstat PROFILE REPORT.json

REPORT.json is `tflame report --json --limit=0 PROFILE` (the first
profile). The expected numbers are computed here from the file alone:

  instruments  a deep copy: each row's figure exactly (ms, s, Gc... to ns,
               cycles; KB, MB to bytes rounded half up); a node's total is
               its figure or its children's totals, whichever is larger,
               its self the rest, as speedscope builds the tree.
  pmcstat      the first "@ EVENT" section: each caller chain that ends
               is a stack, leaf first, weighing its last count.

A function's total counts each stack once, however often it recurs.
Prints one line per mismatch and exits 1 if there is any.
"""

import json
import re
import sys
from decimal import Decimal, ROUND_HALF_UP

UNITS = {"ns": 1, "us": 10**3, "\u00b5s": 10**3, "ms": 10**6, "s": 10**9,
         "min": 60 * 10**9, "cycles": 1, "Kc": 10**3, "Mc": 10**6, "Gc": 10**9,
         "Bytes": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}


def figure(text):
    m = re.match(r"[ \t]*(\d+(?:,\d+)*(?:\.\d*)?) ?([^\s%]*)", text)
    if not m:
        return 0
    mul = UNITS[m.group(2)] if m.group(2) else 1
    number = Decimal(m.group(1).replace(",", ""))
    return int((number * mul).to_integral_value(ROUND_HALF_UP))


def instruments(path):
    """The stacks (root first) and their self weights."""
    lines = open(path, encoding="utf-8").read().split("\n")
    head = lines[0].lstrip("\ufeff").split("\t")
    wcol = next(i for i, h in enumerate(head)
                if h in ("Weight", "Running Time", "Bytes Used"))
    scol = next(i for i, h in enumerate(head) if h in ("Symbol Name", "Symbol Names"))
    rows = []
    for line in lines[1:]:
        f = line.split("\t")
        if len(f) <= scol or not f[scol].strip():
            continue
        sym = f[scol].rstrip()
        rows.append((len(sym) - len(sym.lstrip(" ")), sym.strip(), figure(f[wcol])))
    base = rows[0][0]
    out = []
    # Children come after their parent: walk backwards to total them.
    totals = [0] * len(rows)
    kids = [0] * len(rows)
    parent = [None] * len(rows)
    path_idx = []
    for i, (indent, _, _) in enumerate(rows):
        d = indent - base
        del path_idx[d:]
        parent[i] = path_idx[-1] if path_idx else None
        path_idx.append(i)
    for i in range(len(rows) - 1, -1, -1):
        totals[i] = max(rows[i][2], kids[i])
        if parent[i] is not None:
            kids[parent[i]] += totals[i]
    for i in range(len(rows)):
        stack, j = [], i
        while j is not None:
            stack.append(rows[j][1])
            j = parent[j]
        out.append((stack[::-1], totals[i] - kids[i]))
    return out


def pmcstat(path):
    out, chain, prev = [], [], -1
    section = 0
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\r\n")
        if line.startswith("@ "):
            section += 1
            if section > 1:
                break
            continue
        m = re.match(r"^( *)[\d.]+%  \[(\d+)\]\s*(\S+)(?: @ (.*))?$", line)
        if not m:
            continue
        indent = len(m.group(1))
        if indent <= prev:
            out.append((chain[:prev + 1][::-1], chain_w))
        del chain[indent:]
        chain.append(m.group(3))
        chain_w, prev = int(m.group(2)), indent
    if prev >= 0:
        out.append((chain[:prev + 1][::-1], chain_w))
    return out


def main():
    kind, path, report = sys.argv[1:4]
    stacks = instruments(path) if kind == "instruments" else pmcstat(path)
    self_w, total_w, weight = {}, {}, 0
    for stack, w in stacks:
        weight += w
        if stack:
            self_w[stack[-1]] = self_w.get(stack[-1], 0) + w
        for name in set(stack):
            total_w[name] = total_w.get(name, 0) + w
    rep = json.load(open(report))
    bad = []
    if rep["weight"] != weight:
        bad.append("weight %s, the file adds up to %d" % (rep["weight"], weight))
    got = {}
    for row in rep["top_total"]:
        got[row["function"]] = (row["self"], row["total"])
    for name in total_w:
        want = (self_w.get(name, 0), total_w[name])
        if got.get(name) != want and want != (0, 0):
            bad.append("%s: self, total %s; the file: %s" % (name, got.get(name), want))
    for line in bad:
        print(line)
    print("%s: weight %d and %d functions as the file adds them up" % (path, weight, len(total_w)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
