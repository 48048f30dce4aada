#!/usr/bin/env python3
"""Write a large stackprof, heap profile, GHC or V8 tick log file.

    jsonfmt-gen.py stackprof|heapprofile|ghc|v8log MEGABYTES OUT

For bench/formats-bench.sh. The content is deterministic: a synthetic
call tree of a few thousand functions walked with shared prefixes, laid
out as each tool writes its files (stackprof's frames then raw; V8's and
GHC's nested trees; V8's code list then ticks).
"""
import random
import sys


def walk(rng, nfuncs, max_depth):
    """Endless stacks (lists of function indexes, root first) sharing prefixes."""
    prev = [0]
    while True:
        keep = rng.randint(1, len(prev))
        st = prev[:keep]
        depth = rng.randint(max(2, keep), max_depth)
        while len(st) < depth:
            branch = 0 if rng.random() < 0.95 else rng.randrange(1, 5)
            st.append((st[-1] * 7919 + branch * 104729 + len(st)) % nfuncs)
        prev = st
        yield st


def stackprof(out, target):
    rng = random.Random(1)
    n = 4000
    ids = [140103023018960 + 40 * i for i in range(n)]
    out.write('{"version":1.2,"mode":"wall","interval":1000,"samples":0,"gc_samples":0,'
              '"missed_samples":0,"metadata":{},"frames":{')
    out.write(",".join('"%d":{"name":"Module%d::Class#method_%d","file":"/app/lib/file_%d.rb",'
                       '"line":%d,"total_samples":1,"samples":1}' % (ids[i], i % 50, i, i % 300,
                                                                      i % 900 + 1)
                       for i in range(n)))
    out.write('},"raw":[')
    counts = []
    first = True
    for st in walk(rng, n, 40):
        c = rng.randint(1, 3)
        counts.append(c)
        out.write(("" if first else ",") + "%d,%s,%d" % (len(st), ",".join(str(ids[f]) for f in st), c))
        first = False
        if out.tell() >= target:
            break
    out.write('],"raw_timestamp_deltas":[')
    out.write(",".join(str(rng.randint(900, 1200)) for _ in range(sum(counts))))
    out.write("]}\n")


def tree(out, target, node_open, node_close, fanout_depth=9):
    """A tree written depth first: node_open(i, depth) and node_close()."""
    rng = random.Random(2)
    stack = [0]  # children written so far, per open node
    out.write(node_open(0, 0))
    while stack:
        depth = len(stack)
        want = 0 if depth > 60 else (rng.randint(0, 4) if depth > fanout_depth else 4)
        if out.tell() < target and stack[-1] < want:
            stack[-1] += 1
            out.write(("," if stack[-1] > 1 else "") +
                      node_open(rng.randrange(3000), depth))
            stack.append(0)
        else:
            out.write(node_close())
            stack.pop()


def heapprofile(out, target):
    rng = random.Random(3)
    out.write('{"head":')
    ids = iter(range(1, 1 << 40))

    def node_open(f, depth):
        name = "(root)" if depth == 0 else "fn_%d" % f
        return ('{"callFrame":{"functionName":"%s","scriptId":"%d","url":"file:///app/src/m%d.js",'
                '"lineNumber":%d,"columnNumber":%d},"selfSize":%d,"id":%d,"children":['
                % (name, f % 90, f % 90, f % 700, f % 60, rng.choice((0, 0, 32, 64, 4096)),
                   next(ids)))

    tree(out, target, node_open, lambda: "]}")
    out.write(',"samples":[]}\n')


def ghc(out, target):
    rng = random.Random(4)
    n = 3000
    out.write('{\n"program": "bench",\n"arguments": ["bench"],\n"rts_arguments": ["-pj"],\n'
              '"end_time": "Mon Nov 23 12:00 2026",\n"initial_capabilities": 0,\n'
              '"total_time": 1.00,\n"total_ticks": 1000,\n"tick_interval": 1000,\n'
              '"total_alloc": 1,\n"cost_centres": [\n')
    out.write(", ".join('{"id": %d, "label": "fn%d", "module": "Mod%d", "src_loc": '
                        '"src/Mod%d.hs:%d:1-20", "is_caf": false}' % (i, i, i % 40, i % 40, i % 500)
                        for i in range(n)))
    out.write('],\n"profile": ')

    def node_open(f, depth):
        return ('{"id": %d, "entries": %d, "alloc": %d, "ticks": %d, "children": ['
                % (f, rng.randrange(100), rng.choice((0, 0, 48, 1024)), rng.choice((0, 0, 0, 1, 2)),
                   ))

    tree(out, target, node_open, lambda: "]}")
    out.write('}\n')


def v8log(out, target):
    rng = random.Random(5)
    n = 50000
    out.write('{"code":[')
    kinds = ('CPP', 'JS', 'CODE', 'SHARED_LIB')
    entries = []
    for i in range(n):
        k = kinds[0 if i % 10 < 6 else 1 if i % 10 < 9 else 2]
        if k == 'CPP':
            entries.append('{"name":"T v8::internal::Fn%d(int)","type":"CPP"}' % i)
        elif k == 'JS':
            entries.append('{"name":"fn%d /app/src/m%d.js:%d:%d","type":"JS","kind":"Opt",'
                           '"func":%d,"tm":%d}' % (i, i % 90, i % 700, i % 60, i, i))
        else:
            entries.append('{"name":"Builtin%d","type":"CODE","kind":"Builtin"}' % i)
    out.write(",".join(entries))
    out.write('],"functions":[],"ticks":[')
    tm = 1000
    first = True
    for st in walk(rng, n, 40):
        tm += rng.randint(900, 1200)
        s = []
        for f in reversed(st):
            s.append("%d,%d" % (f, rng.randrange(2000)))
        out.write(("" if first else ",") + '{"tm":%d,"vm":0,"s":[%s]}' % (tm, ",".join(s)))
        first = False
        if out.tell() >= target:
            break
    out.write('],"scripts":[]}\n')


class Out:
    """A file that counts what was written (tell() of a text file is slow)."""

    def __init__(self, f):
        self.f, self.n = f, 0

    def write(self, s):
        self.n += len(s)
        self.f.write(s)

    def tell(self):
        return self.n


def main():
    kind, mb, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path, "w", buffering=1 << 20) as f:
        {"stackprof": stackprof, "heapprofile": heapprofile, "ghc": ghc,
         "v8log": v8log}[kind](Out(f), mb * 1000 * 1000)


if __name__ == "__main__":
    main()
