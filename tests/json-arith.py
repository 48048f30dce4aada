#!/usr/bin/env python3
"""Check tflame's numbers for a JSON profile against the file's own arithmetic.

    json-arith.py speedscope|trace|cpuprofile PROFILE REPORT.json

REPORT.json is `tflame report --json --limit=0 PROFILE`. The expected
numbers are computed here from the profile alone, with exact decimals:

  speedscope  an evented profile in a time unit: each "at" rounded to the
              ns (halves away from zero), then a frame's self is the sum of
              the intervals it is innermost over, its total the sum of the
              intervals it is open over (once, when it recurses); the
              weight is the time anything is open, the time span runs from
              the first event to the last.
  trace       Trace Event B/E pairs and X events (ts, dur in us), nested per
              thread: self is an event's time less its children's, total
              the union of a name's events; the weight is the union of
              each thread's events, the span from the first start to the
              last end.
  cpuprofile  a .cpuprofile, new (timeDeltas) or old (head, timestamps)
              form: sample i lasts from its time to the next sample's, the
              last not at all, as speedscope weighs them; a time that goes
              back holds until the samples pass it. (root) is above every
              stack and not shown. A function is its name, url, line and
              column, as DevTools and speedscope key a call frame, and is
              named by jsnames.py (jsframes.h's rules).
  gecko       a Gecko profile, raw or processed, with its processes: a
              sample counts 1 (or its weight), one with no stack nowhere;
              in a DevTools recording (under "profile") a sample lasts
              until the next, the last not at all. Times in ms from the
              outermost startTime; the outermost (root) is not shown.
  gecko-js    a DevTools recording as speedscope shows it: page JS frames
              only (no native labels, no resource: or self-hosted JS). A
              function's total must be tflame's; its self too, unless a
              hidden frame ran under it (then speedscope gives the hidden
              frame's time to it). A name that Firefox's own JS uses too
              is one function to tflame (same name, same category): those
              are counted and left out.
  safari      a Safari recording: a sample weighs its duration (s), a gap
              of more than 2 ms before it is a sample of no frames.

Prints one line per mismatch and exits 1 if there is any.
"""

import json
import re
import sys
from decimal import Decimal, ROUND_HALF_UP

from jsnames import js_functions, js_key


def ns(value, scale):
    """A decimal in a unit of 10^-scale s (9 for ns...) as whole ns."""
    return int((Decimal(value) * Decimal(10) ** (9 - scale)).to_integral_value(ROUND_HALF_UP))


def add(d, k, v):
    d[k] = d.get(k, 0) + v


def speedscope(doc):
    scales = {"nanoseconds": 9, "microseconds": 6, "milliseconds": 3, "seconds": 0}
    frames = doc["shared"]["frames"]
    prof = doc["profiles"][0]
    assert prof["type"] == "evented", "the first profile must be evented"
    scale = scales[prof["unit"]]
    self_, total, weight = {}, {}, 0
    stack, last = [], None
    times = []
    for ev in prof["events"]:
        at = ns(ev["at"], scale)
        times.append(at)
        if stack and at > last:
            d = at - last
            weight += d
            add(self_, stack[-1], d)
            for name in set(stack):
                add(total, name, d)
        last = at
        name = frames[ev["frame"]]["name"] or "(anonymous)"
        if ev["type"] == "O":
            stack.append(name)
        else:
            assert stack and stack[-1] == name, "events do not nest"
            stack.pop()
    return self_, total, weight, times[0], times[-1]


def trace(doc):
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    threads = {}
    for seq, ev in enumerate(events):
        ph = ev.get("ph")
        if ph not in ("B", "E", "X"):
            continue
        t = threads.setdefault((ev.get("pid"), ev.get("tid")), {"iv": [], "open": []})
        ts = ns(ev["ts"], 6)
        if ph == "X":
            t["iv"].append((ts, ts + ns(ev["dur"], 6), ev["name"] or "(anonymous)"))
        elif ph == "B":
            t["open"].append((ts, ev["name"]))
        else:
            b = t["open"].pop()
            assert b[1] == ev.get("name", b[1]), "E does not close the innermost B"
            t["iv"].append((b[0], ts, b[1] or "(anonymous)"))
    self_, total, weight = {}, {}, 0
    first, end = None, None
    for t in threads.values():
        assert not t["open"], "a B never ends"
        iv = sorted(t["iv"], key=lambda x: (x[0], -x[1]))
        stack = []  # [end, name, self]
        by_name = {}
        covered = []
        for s, e, name in iv:
            first = s if first is None else min(first, s)
            end = e if end is None else max(end, e)
            while stack and stack[-1][0] <= s:
                _, n, sf = stack.pop()
                add(self_, n, sf)
            if stack:
                assert e <= stack[-1][0], "a child outlives its parent"
                stack[-1][2] -= e - s
            else:
                covered.append((s, e))
            stack.append([e, name, e - s])
            by_name.setdefault(name, []).append((s, e))
        while stack:
            _, n, sf = stack.pop()
            add(self_, n, sf)
        weight += sum(e - s for s, e in covered)
        for name, spans in by_name.items():
            spans.sort()
            cur_s, cur_e = spans[0]
            for s, e in spans[1:]:
                if s >= cur_e:
                    add(total, name, cur_e - cur_s)
                    cur_s, cur_e = s, e
                else:
                    cur_e = max(cur_e, e)
            add(total, name, cur_e - cur_s)
    return self_, total, weight, first, end


def cpuprofile(doc):
    nodes, parent = {}, {}
    if "head" in doc:
        todo = [(doc["head"], None)]
        while todo:
            n, p = todo.pop()
            nodes[n["id"]] = js_key(n.get("callFrame") or n)
            parent[n["id"]] = p
            todo.extend((c, n["id"]) for c in n.get("children", []))
        # One timestamp a sample; node 10 wrote one more, which speedscope
        # does not read.
        times = [ns(t, 6) for t in doc["timestamps"][:len(doc["samples"])]]
    else:
        for n in doc["nodes"]:
            nodes[n["id"]] = js_key(n["callFrame"])
            for c in n.get("children", []):
                parent[c] = n["id"]
        t = ns(doc["startTime"], 6)
        times = []
        for d in doc["timeDeltas"]:
            t += ns(d, 6)
            times.append(t)
    names = js_functions(set(nodes.values()))
    nodes = {k: names[v] for k, v in nodes.items()}
    held, hi = [], None
    for t in times:
        hi = t if hi is None or t > hi else hi
        held.append(hi)
    self_, total, weight = {}, {}, 0
    for i, node in enumerate(doc["samples"]):
        w = held[i + 1] - held[i] if i + 1 < len(held) else 0
        weight += w
        stack, n = [], node
        while n is not None:
            if nodes[n][0] != "(root)":
                stack.append(nodes[n])
            n = parent.get(n)
        if not stack:
            continue
        add(self_, stack[0], w)
        for name in set(stack):
            add(total, name, w)
    return self_, total, weight, held[0], held[-1]


def gecko_name(loc):
    """A raw frame's location as tflame names it."""
    k = loc.rfind(" (")
    if len(loc) < 4 or not loc.endswith(")") or k < 1:
        return loc or "(anonymous)"
    inner = loc[k + 2:-1]
    if inner.startswith("in ") and len(inner) > 3:
        return loc[:k]
    if re.fullmatch(r"(.+?):(\d{1,9})(?::(\d{1,9}))?", inner):
        return loc[:k] or "(anonymous)"
    return loc


def gecko_threads(doc):
    """(thread, offset ns, devtools) of every thread of every process."""
    devtools = "profile" in doc and "meta" not in doc
    top = doc["profile"] if devtools else doc
    out, todo, root = [], [(top, None)], None
    while todo:
        prof, strings = todo.pop()
        start = prof.get("meta", {}).get("startTime")
        if start is not None and root is None:
            root = ns(start, 3)
        off = ns(start, 3) - root if start is not None else 0
        shared = prof.get("shared", {}).get("stringArray")
        for t in prof.get("threads", []):
            out.append((t, off, shared))
        todo.extend((p, None) for p in prof.get("processes", []))
    return out, devtools


def gecko_table(t, name):
    """A table as {column: list}, from either form."""
    tab = t.get(name, {})
    if "schema" not in tab:
        return tab
    cols = {}
    for col, idx in tab["schema"].items():
        cols[col] = [row[idx] if idx < len(row) else None for row in tab["data"]]
    return cols


def gecko_stacks(t, shared):
    strings = t.get("stringTable", t.get("stringArray", shared))
    st, fr = gecko_table(t, "stackTable"), gecko_table(t, "frameTable")
    fn = gecko_table(t, "funcTable")

    def frame_name(f):
        if "func" in fr and fr["func"][f] is not None:
            return strings[fn["name"][fr["func"][f]]] or "(anonymous)"
        return gecko_name(strings[fr["location"][f]])

    def stack(s):
        out = []
        while s is not None:
            out.append(frame_name(st["frame"][s]))
            s = st["prefix"][s]
        if len(out) > 1 and out[-1] == "(root)":
            out.pop()
        return out          # leaf first
    return stack


def gecko(doc):
    self_, total, weight, times = {}, {}, 0, []
    threads, devtools = gecko_threads(doc)
    for t, off, shared in threads:
        stack = gecko_stacks(t, shared)
        smp = gecko_table(t, "samples")
        if "timeDeltas" in smp:
            acc, ts = 0, []
            for d in smp["timeDeltas"]:
                acc += ns(d, 3)
                ts.append(acc)
        else:
            ts = [ns(x, 3) for x in smp["time"]]
        ts = [x + off for x in ts]
        wts = smp.get("weight") or [1] * len(ts)
        for i, s in enumerate(smp["stack"]):
            if devtools:
                w = max(ts[i + 1] - ts[i], 0) if i + 1 < len(ts) else 0
            elif s is None:
                continue
            else:
                w = wts[i]
            weight += w
            times.append(ts[i])
            names = stack(s) if s is not None else []
            if names:
                add(self_, names[0], w)
            for name in set(names):
                add(total, name, w)
    return self_, total, weight, min(times), max(times)


def gecko_js(doc, got):
    """speedscope's view of a DevTools recording against tflame's report."""
    rx = re.compile(r"(.*)\s+\((.*?)(?::(\d+))?(?::(\d+))?\)$")

    def page_js(loc):
        m = rx.match(loc)
        if not m or m.group(2).startswith("resource:") or \
           m.group(2).split(":")[0] == "self-hosted":
            if m:
                internal.add(m.group(1))
            return None
        return m.group(1)
    internal = set()
    t = doc["profile"]["threads"][0]
    strings = t["stringTable"]
    st, fr = gecko_table(t, "stackTable"), gecko_table(t, "frameTable")
    smp = gecko_table(t, "samples")
    ts = [ns(x, 3) for x in smp["time"]]
    self_, total, hidden = {}, {}, set()
    for i, s in enumerate(smp["stack"][:-1]):
        w = ts[i + 1] - ts[i]
        locs = []
        while s is not None:
            locs.append(strings[fr["location"][st["frame"][s]]])
            s = st["prefix"][s]
        js = [page_js(x) for x in locs]
        shown = [x for x in js if x]
        if shown:
            add(self_, shown[0], w)
            if js[0] is None:
                hidden.add(shown[0])
        for name in set(shown):
            add(total, name, w)
    rows = {r["function"]: r for r in got["top_self"] + got["top_total"]}
    bad = []
    shared = set(total) & internal
    for name in sorted(set(total) - shared):
        r = rows.get(name, {"self": 0, "total": 0})
        if r["total"] != total[name] or (name not in hidden and r["self"] != self_.get(name, 0)):
            bad.append("%s: tflame self %s total %s, speedscope self %s total %s"
                       % (name, r["self"], r["total"], self_.get(name, 0), total[name]))
    return bad, len(total), len(hidden), len(shared)


def safari(doc):
    rec = doc["recording"]
    self_, total, weight, prev, first = {}, {}, 0, None, None
    end = None
    for smp, dur in zip(rec["sampleStackTraces"], rec["sampleDurations"]):
        e, w = ns(smp["timestamp"], 0), ns(dur, 0)
        if prev is not None and e - w - prev > 2000000:
            weight += e - w - prev
        weight += w
        first = e - w if first is None else first
        end = e
        prev = e
        names = []
        for f in smp["stackFrames"]:
            url = f.get("url") or ""
            names.append(f.get("name") or ("(anonymous %s:%d)" % (url.split("/")[-1], f["line"])
                                           if url else "(anonymous)"))
        if names:
            add(self_, names[0], w)
        for name in set(names):
            add(total, name, w)
    return self_, total, weight, first, end


def main():
    kind, path, report = sys.argv[1:4]
    with open(path) as f:
        doc = json.load(f, parse_float=Decimal)
    with open(report) as f:
        got = json.load(f)
    if kind == "gecko-js":
        bad, n, hidden, shared = gecko_js(doc, got)
        for line in bad:
            print(line)
        print("%s: %d page JS functions as speedscope shows them (%d calling hidden frames, "
              "%d named as Firefox's own), %d mismatches" % (path, n, hidden, shared, len(bad)))
        return 1 if bad else 0
    self_, total, weight, start, end = {"speedscope": speedscope, "trace": trace,
                                        "cpuprofile": cpuprofile, "gecko": gecko,
                                        "safari": safari}[kind](doc)
    bad = []
    if got["weight"] != weight:
        bad.append("weight: tflame %s, file %s" % (got["weight"], weight))
    if got["time"]["start_ns"] != start or got["time"]["end_ns"] != end:
        bad.append("time: tflame %s .. %s, file %s .. %s"
                   % (got["time"]["start_ns"], got["time"]["end_ns"], start, end))
    # Functions with no self weight are listed by total only. A .cpuprofile's
    # functions are (name, module) pairs; the other formats' have no module.
    keyed = kind == "cpuprofile"
    rows = {(r["function"], r["module"]) if keyed else r["function"]: r
            for r in got["top_self"] + got["top_total"]}
    for name in sorted(set(self_) | set(total) | set(rows)):
        r = rows.get(name, {"self": 0, "total": 0})
        if r["self"] != self_.get(name, 0) or r["total"] != total.get(name, 0):
            bad.append("%s: tflame self %s total %s, file self %s total %s"
                       % (name, r["self"], r["total"], self_.get(name, 0), total.get(name, 0)))
    for line in bad:
        print(line)
    print("%s: %d functions, weight %d ns, %d mismatches" % (path, len(rows), weight, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
