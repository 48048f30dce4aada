#!/usr/bin/env python3
"""Check tflame's numbers for stackprof, GHC, V8 log and heap profiles.

    json-formats.py KIND PROFILE REPORT.json

KIND is stackprof, heapprofile, ghc-time, ghc-allocation or v8log;
REPORT.json is `tflame report --json --limit=0 PROFILE` (with
--event=time or --event=allocation for GHC). The expected numbers are
computed here from the profile alone, the way speedscope's importers
weigh and name them (doc/fidelity.md):

  stackprof       raw is [height, frame ids root first..., count]*; in
                  object mode a stack weighs its count, else the sum of its
                  samples' raw_timestamp_deltas (us); a stack of the lone
                  frame "(garbage collection)" goes on top of the one
                  before. A frame is its name ("[unknown]" without one).
  heapprofile     every node of the tree is a sample of its path, (root)
                  included, weighing its selfSize; a function is its name,
                  url, line and column, named and given its module as
                  jsnames.py says (an anonymous one "(anonymous)
                  BASENAME:LINE:COL", 1-based).
  ghc-time        every node of the cost-centre tree weighs its ticks
                  times tick_interval (us); ghc-allocation its alloc; a
                  frame is "module.label".
  v8log           ticks sorted by tm, each weighing tm less the tick
                  before's (the first: less 0), its stack the even entries
                  of s, leaf first, -1 left out, named by speedscope's
                  rules (regular expressions and all), but for an
                  anonymous function: "(anonymous) BASENAME:LINE:COL", also
                  of a script the expressions cannot read (node:...).

A PROFILE ending in .zip is read from the archive's first file.
Self is the weight of the samples a function is the leaf of, total the
weight of those it is anywhere in, once. Times are compared in ns.
Prints one line per mismatch and exits 1 if there is any.
"""

import json
import re
import sys
import zipfile

from jsnames import js_functions, js_key


def add(d, k, v):
    d[k] = d.get(k, 0) + v


def tally(samples):
    """samples: (stack root first, weight) pairs -> self, total, weight."""
    self_, total, weight = {}, {}, 0
    for stack, w in samples:
        weight += w
        if not stack:
            continue
        add(self_, stack[-1], w)
        for name in set(stack):
            add(total, name, w)
    return self_, total, weight


def stackprof(doc):
    frames = doc["frames"]
    obj = doc["mode"] == "object"
    deltas = doc.get("raw_timestamp_deltas", [])
    raw, i, d, prev, out = doc["raw"], 0, 0, [], []
    while i < len(raw):
        h = raw[i]
        stack = [frames[str(x)].get("name") or "[unknown]" for x in raw[i + 1:i + 1 + h]]
        n = raw[i + 1 + h]
        i += h + 2
        if len(stack) == 1 and stack[0] == "(garbage collection)":
            stack = prev + stack
        if obj:
            w = n
        else:
            w = sum(deltas[d:d + n]) * 1000
            d += n
        out.append((stack, w))
        prev = stack
    return tally(out)


def heapprofile(doc):
    out, todo = [], [(doc["head"], [])]
    while todo:
        node, path = todo.pop()
        stack = path + [js_key(node["callFrame"])]
        out.append((stack, node.get("selfSize", 0)))
        todo.extend((c, stack) for c in node.get("children", []))
    names = js_functions({k for stack, _ in out for k in stack})
    return tally([([names[k] for k in stack], w) for stack, w in out])


def ghc(doc, what):
    names = {c["id"]: "%s.%s" % (c["module"], c["label"]) for c in doc["cost_centres"]}
    scale = doc.get("tick_interval") or 1000
    out, todo = [], [(doc["profile"], [])]
    while todo:
        node, path = todo.pop()
        stack = path + [names[node["id"]]]
        w = node["ticks"] * scale * 1000 if what == "time" else node["alloc"]
        out.append((stack, w))
        todo.extend((c, stack) for c in node["children"])
    return tally(out)


def v8_name(code):
    if not code or not code.get("type"):
        return "(unknown type)"
    name, t = code["name"], code["type"]
    if t == "CPP":
        m = re.search(r"[tT] ([^(<]*)", name)
        return "(c++) " + m.group(1) if m else name
    if t == "SHARED_LIB":
        return "(LIB) " + name
    if t == "JS":
        m = re.search(r"([a-zA-Z0-9\._\-$]*) ([a-zA-Z0-9\.\-_\/$]*):(\d+):(\d+)", name)
        if not m:
            # An anonymous function of a script the expression cannot
            # read (node:internal/...): tflame names it all the same.
            a = re.fullmatch(r" ([^ ]+):(\d{1,9}):(\d{1,9})", name)
            if a:
                return "(anonymous) %s:%s:%s" % (a.group(1).split("/")[-1], int(a.group(2)),
                                                 int(a.group(3)))
            return name
        if m.group(1):
            return m.group(1)
        if m.group(2):
            return "(anonymous) %s:%s:%s" % (m.group(2).split("/")[-1], int(m.group(3)),
                                             int(m.group(4)))
        return "(anonymous)"
    if t == "CODE":
        kind = code.get("kind")
        if kind in ("LoadIC", "StoreIC", "KeyedStoreIC", "KeyedLoadIC", "LoadGlobalIC", "Handler"):
            return "(IC) " + name
        prefix = {"BytecodeHandler": "(bytecode) ~", "Stub": "(stub) ", "Builtin": "(builtin) ",
                  "RegExp": "(regexp) "}.get(kind, "")
        return prefix + name
    return "(%s) %s" % (t, name)


def v8log(doc):
    code, out, last = doc["code"], [], 0
    for tick in sorted(doc["ticks"], key=lambda t: t["tm"]):
        s, stack = tick["s"], []
        for i in range(len(s) - 2, -1, -2):
            if s[i] == -1:
                continue
            if s[i] > len(code):
                stack.append("0x%x" % s[i])
            else:
                stack.append(v8_name(code[s[i]] if 0 <= s[i] < len(code) else None))
        out.append((stack, (tick["tm"] - last) * 1000))
        last = tick["tm"]
    return tally(out)


def main():
    kind, path, report = sys.argv[1:4]
    if path.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            doc = json.loads(z.read(z.infolist()[0]))
    else:
        with open(path) as f:
            doc = json.load(f)
    if kind.startswith("ghc-"):
        self_, total, weight = ghc(doc, kind[4:])
    else:
        self_, total, weight = {"stackprof": stackprof, "heapprofile": heapprofile,
                                "v8log": v8log}[kind](doc)
    with open(report) as f:
        got = json.load(f)
    bad = []
    if got["weight"] != weight:
        bad.append("weight: tflame %s, file %s" % (got["weight"], weight))
    # A heap profile's functions are (name, module) pairs, as jsnames.py names them.
    keyed = kind == "heapprofile"
    rows = {(r["function"], r["module"]) if keyed else r["function"]: r
            for r in got["top_self"] + got["top_total"]}
    for name in sorted(set(self_) | set(total) | set(rows)):
        if not total.get(name, 0) and name not in rows:
            continue
        r = rows.get(name, {"self": 0, "total": 0})
        if r["self"] != self_.get(name, 0) or r["total"] != total.get(name, 0):
            bad.append("%s: tflame self %s total %s, file self %s total %s"
                       % (name, r["self"], r["total"], self_.get(name, 0), total.get(name, 0)))
    for line in bad:
        print(line)
    print("%s: %d functions, weight %d %s, %d mismatches"
          % (path, len(rows), weight, got["unit"], len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
