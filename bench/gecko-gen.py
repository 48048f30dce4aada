#!/usr/bin/env python3
"""Write a large Gecko profile or Safari recording for bench/formats-bench.sh.

    gecko-gen.py gecko|gecko-processed|safari MEGABYTES OUT

gecko: the raw form as Firefox and `perf script report gecko` write it
(meta first, then threads whose samples come before their stack, frame
and string tables), 8 threads of one process and 4 of a child process.
gecko-processed: the processed form as Python's sampling profiler writes
it, one array per column and every string in shared.stringArray after
the threads, so that no thread can be built before the end: the
importer's worst case for memory. safari: a Web Inspector recording.

The content is deterministic: a synthetic call tree walked by every
thread, so the loaded profile has many stacks and realistic nesting.
"""
import json
import random
import sys

NAMES = ["fn_%d_%s" % (i, "x" * (i % 17)) for i in range(3000)]


def walk(rng, count, max_depth):
    """count stacks (lists of name indexes, root first) sharing prefixes."""
    prev = [0]
    for _ in range(count):
        keep = rng.randint(1, len(prev))
        st = prev[:keep]
        depth = rng.randint(max(2, keep), max_depth)
        while len(st) < depth:
            branch = 0 if rng.random() < 0.97 else rng.randrange(1, 4)
            st.append((st[-1] * 7919 + branch * 104729 + len(st)) % len(NAMES))
        prev = st
        yield st


class Thread:
    """One thread's tables, interned as Gecko's writers intern them."""

    def __init__(self):
        self.stacks, self.stack_map = [], {}
        self.frames, self.frame_map = [], {}
        self.samples = []

    def frame(self, name):
        if name not in self.frame_map:
            self.frame_map[name] = len(self.frames)
            self.frames.append(name)
        return self.frame_map[name]

    def stack(self, st):
        prefix = None
        for name in st:
            key = (prefix, self.frame(name))
            if key not in self.stack_map:
                self.stack_map[key] = len(self.stacks)
                self.stacks.append(key)
            prefix = self.stack_map[key]
        return prefix


def fill(threads, target, per_sample):
    """Samples round-robin until about target bytes of them are written."""
    rng = random.Random(1)
    n = target // per_sample
    stacks = list(walk(rng, 20000, 40))
    t = 0.0
    for i in range(n):
        th = threads[i % len(threads)]
        th.samples.append((th.stack(stacks[rng.randrange(len(stacks))]), round(t, 3)))
        t += 0.125
    return n


def gecko(out, target):
    main, child = [Thread() for _ in range(8)], [Thread() for _ in range(4)]
    fill(main + child, target, 19)
    cats = [{"name": "Other", "color": "grey", "subcategories": ["Other"]},
            {"name": "JavaScript", "color": "yellow", "subcategories": ["Other"]}]

    def thread(th, tid):
        out.write('{"name":"T%d","processType":"default","tid":%d,"pid":%d,"registerTime":0,'
                  '"samples":{"schema":{"stack":0,"time":1,"eventDelay":2},"data":['
                  % (tid, tid, tid // 100 * 100))
        out.write(",".join("[%d,%s,0]" % s for s in th.samples))
        out.write(']},"stackTable":{"schema":{"prefix":0,"frame":1},"data":[')
        out.write(",".join("[%s,%d]" % ("null" if p is None else p, f) for p, f in th.stacks))
        out.write(']},"frameTable":{"schema":{"location":0,"relevantForJS":1,"innerWindowID":2,'
                  '"implementation":3,"line":4,"column":5,"category":6,"subcategory":7},"data":[')
        out.write(",".join("[%d,false,0,null,%d,null,%d,0]" % (i, n % 900, n % 2)
                           for i, n in enumerate(th.frames)))
        out.write(']},"stringTable":')
        out.write(json.dumps(["%s (in libapp.so)" % NAMES[n] if n % 2 == 0 else
                              "%s (https://example.org/app.js:%d:1)" % (NAMES[n], n)
                              for n in th.frames]))
        out.write("}")

    def profile(threads, base, start, processes):
        out.write('{"meta":{"version":27,"startTime":%s,"interval":0.125,"stackwalk":1,'
                  '"processType":0,"product":"bench","categories":%s},"libs":[],"threads":['
                  % (start, json.dumps(cats)))
        for i, th in enumerate(threads):
            if i:
                out.write(",")
            thread(th, base + i)
        out.write('],"processes":[')
        processes()
        out.write('],"pausedRanges":[]}')

    profile(main, 100, 1700000000000.0,
            lambda: profile(child, 200, 1700000000050.0, lambda: None))


def gecko_processed(out, target):
    threads = [Thread() for _ in range(8)]
    fill(threads, target, 14)
    strings, smap = [], {}

    def s(x):
        if x not in smap:
            smap[x] = len(strings)
            strings.append(x)
        return smap[x]
    out.write('{"meta":{"interval":0.125,"startTime":0,"version":32,"preprocessedProfileVersion":57,'
              '"categories":[{"name":"Other","color":"grey","subcategories":["Other"]},'
              '{"name":"Python","color":"yellow","subcategories":["Other"]}],"product":"Python"},'
              '"libs":[],"threads":[')
    for i, th in enumerate(threads):
        if i:
            out.write(",")
        n = len(th.samples)
        out.write('{"name":"Thread-%d","pid":"4000","tid":%d,"processType":"default",' % (i, i))
        out.write('"samples":{"stack":[%s],"time":[%s],"weight":null,"weightType":"samples",'
                  '"length":%d},' % (",".join(str(x[0]) for x in th.samples),
                                     ",".join(str(x[1]) for x in th.samples), n))
        out.write('"stackTable":{"frame":[%s],"prefix":[%s],"category":[%s],"length":%d},'
                  % (",".join(str(f) for _, f in th.stacks),
                     ",".join("null" if p is None else str(p) for p, _ in th.stacks),
                     ",".join("1" for _ in th.stacks), len(th.stacks)))
        nf = len(th.frames)
        out.write('"frameTable":{"func":[%s],"category":[%s],"line":[%s],"length":%d},'
                  % (",".join(str(k) for k in range(nf)), ",".join("1" for _ in range(nf)),
                     ",".join(str(x % 900) for x in th.frames), nf))
        out.write('"funcTable":{"name":[%s],"fileName":[%s],"lineNumber":[%s],"resource":[%s],'
                  '"length":%d},' % (",".join(str(s(NAMES[x])) for x in th.frames),
                                     ",".join(str(s("mod%d.py" % (x % 40))) for x in th.frames),
                                     ",".join(str(x % 900) for x in th.frames),
                                     ",".join(str(x % 40) for x in th.frames), nf))
        out.write('"resourceTable":{"name":[%s],"type":[%s],"length":40}}'
                  % (",".join(str(s("mod%d.py" % k)) for k in range(40)),
                     ",".join("1" for _ in range(40))))
    out.write('],"pages":[],"shared":{"stringArray":%s}}' % json.dumps(strings))


def safari(out, target):
    rng = random.Random(1)
    stacks = list(walk(rng, 20000, 40))
    out.write('{"version":1,"recording":{"displayName":"bench","startTime":0,"endTime":1,'
              '"instrumentTypes":["timeline-record-type-script"],"records":[],'
              '"sampleStackTraces":[')
    written, t, n = 0, 1.0, 0
    while written < target:
        st = stacks[rng.randrange(len(stacks))]
        frames = ",".join('{"sourceID":"3","name":"%s","line":%d,"column":1,"url":"app.js"}'
                          % (NAMES[x], x % 900) for x in reversed(st))
        rec = '%s{"timestamp":%.6f,"stackFrames":[%s]}' % ("," if n else "", t, frames)
        out.write(rec)
        written += len(rec)
        t += 0.001
        n += 1
    out.write('],"sampleDurations":[%s]}}' % ",".join("0.001" for _ in range(n)))


def main():
    kind, mb, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path, "w") as out:
        {"gecko": gecko, "gecko-processed": gecko_processed, "safari": safari}[kind](
            out, mb * 1000 * 1000)


if __name__ == "__main__":
    main()
