#!/usr/bin/env python3
"""Write a large Chrome trace or speedscope file for bench/json-bench.sh.

    json-gen.py chrome|speedscope MEGABYTES OUT

The content is deterministic: a synthetic call tree walked by several
threads, so the loaded profile has many stacks and realistic nesting.
The speedscope file lists its profiles before shared.frames, as py-spy
writes them, which is the harder order for a streaming reader.
"""
import random
import sys


def frames(n):
    return ["fn_%d_%s" % (i, "x" * (i % 17)) for i in range(n)]


def stacks(rng, names, count, max_depth):
    """count stacks (lists of frame indexes, root first) that share prefixes."""
    prev = [0]
    for _ in range(count):
        keep = rng.randint(1, len(prev))
        st = prev[:keep]
        depth = rng.randint(max(2, keep), max_depth)
        while len(st) < depth:
            # Mostly the usual callee of the caller, sometimes another:
            # real call trees are narrow, and unique stacks stay few.
            branch = 0 if rng.random() < 0.97 else rng.randrange(1, 4)
            st.append((st[-1] * 7919 + branch * 104729 + len(st)) % len(names))
        prev = st
        yield st


def chrome(out, target):
    rng = random.Random(1)
    names = frames(3000)
    out.write('{"traceEvents":[\n')
    out.write('{"pid":1,"tid":1,"ph":"M","name":"process_name","args":{"name":"bench"}}')
    ts = 1000000
    written = 0
    for tid in (1, 2, 3, 4):
        out.write(',\n{"pid":1,"tid":%d,"ph":"M","name":"thread_name","args":{"name":"worker-%d"}}' % (tid, tid))
    tid = 1
    while written < target:
        buf = []
        for st in stacks(rng, names, 2000, 30):
            # one chain of nested B/E events, the leaf lasting a few µs
            for f in st:
                buf.append(',\n{"pid":1,"tid":%d,"ts":%d.%03d,"ph":"B","name":"%s","cat":"js","args":{}}'
                           % (tid, ts // 1000, ts % 1000, names[f]))
                ts += 1
            ts += rng.randint(100, 5000)
            for f in reversed(st):
                buf.append(',\n{"pid":1,"tid":%d,"ts":%d.%03d,"ph":"E","name":"%s","cat":"js","args":{}}'
                           % (tid, ts // 1000, ts % 1000, names[f]))
                ts += 1
            tid = tid % 4 + 1
        s = "".join(buf)
        out.write(s)
        written += len(s)
    out.write("]}\n")


def speedscope(out, target):
    rng = random.Random(2)
    names = frames(5000)
    out.write('{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[')
    written = 0
    for p in range(2):
        out.write('%s{"type":"sampled","name":"thread %d","unit":"microseconds",'
                  '"startValue":0,"endValue":0,"samples":[' % ("," if p else "", p))
        weights = []
        first = True
        while written < target * (p + 1) // 2:
            buf = []
            for st in stacks(rng, names, 2000, 40):
                buf.append(("" if first else ",") + "[" + ",".join(map(str, st)) + "]")
                first = False
                weights.append(rng.randint(1, 20000))
            s = "".join(buf)
            out.write(s)
            written += len(s)
        out.write('],"weights":[' + ",".join(map(str, weights)) + "]}")
        written += 7 * len(weights)
    out.write('],"shared":{"frames":[')
    out.write(",".join('{"name":"%s","file":"src/m%d.js","line":%d,"col":%d}'
                       % (n, i % 40, i % 900 + 1, i % 30) for i, n in enumerate(names)))
    out.write("]}}\n")


def main():
    kind, mb, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path, "w") as out:
        (chrome if kind == "chrome" else speedscope)(out, mb * 1000 * 1000)


main()
