#!/usr/bin/env python3
"""Generate a large profile in one of the issue 18 formats, for formats-bench.sh.

    formats-gen.py FORMAT MEGABYTES OUT

FORMAT is instruments (a Time Profiler deep copy: a call tree 40 levels
deep at most, 4000 symbols), pmcstat (a pmcstat -G call graph: leaf
functions and caller chains 3 to 30 deep, two events) or papyrus (a
papyrus stack log: nested PUSH/POP pairs on 8 stacks, times rising by
0 to 3 ms). Seeded, so the same arguments give the same file.
"""

import random
import sys


def names(rng, n, style):
    out = []
    for i in range(n):
        if style == "papyrus":
            out.append("mod_%d_script..Function%d" % (rng.randrange(300), i))
        else:
            out.append("ns%d::Class%d::method_%d(int, char const*)" % (i % 37, i % 211, i))
    return out


def instruments(rng, target, w):
    syms = names(rng, 4000, "c")
    w.write("Weight\tSelf Weight\t\tSymbol Name\n")
    size = 0
    while size < target:
        # One tree: depth-first, each node's weight split among children.
        stack = [(0, 10 ** 9)]
        buf = []
        while stack:
            depth, ns = stack.pop()
            ms = ns / 1e6
            buf.append("%.2f ms  %.1f%%\t%.2f ms\t \t%s%s\n"
                       % (ms, 12.5, ms / 4, " " * depth, syms[rng.randrange(4000)]))
            if depth < 40 and ns > 10 ** 5:
                kids = rng.randrange(1, 4)
                for _ in range(kids):
                    stack.append((depth + 1, ns * rng.randrange(20, 33) // 100))
        chunk = "".join(buf)
        w.write(chunk)
        size += len(chunk)


def pmcstat(rng, target, w):
    syms = names(rng, 3000, "c")
    size = 0
    for event in ("CPU_CLK_UNHALTED_CORE", "INST_RETIRED_ANY"):
        w.write("@ %s [123456 samples]\n\n" % event)
        while size < target * (1 if event == "INST_RETIRED_ANY" else 0.5):
            buf = []
            count = rng.randrange(100, 5000)
            buf.append("%.2f%%  [%d]     %s @ /usr/lib/libdemo%d.so\n"
                       % (1.5, count, syms[rng.randrange(3000)], rng.randrange(9)))
            chains = rng.randrange(1, 6)
            for c in range(chains):
                # The chains share the samples out, as pmcstat prints them.
                part = count // chains + (c < count % chains)
                for d in range(1, rng.randrange(3, 31)):
                    buf.append("%s%.2f%%  [%d]     %s\n"
                               % (" " * d, 50.0, part, syms[rng.randrange(3000)]))
            buf.append("\n")
            chunk = "".join(buf)
            w.write(chunk)
            size += len(chunk)


def papyrus(rng, target, w):
    fns = names(rng, 2000, "papyrus")
    w.write("Stack_bench log opened (PC)\n")
    t, size = 100000, 0
    while size < target:
        buf = []
        stack_id = rng.randrange(1000, 1008)
        open_fns = []
        for _ in range(rng.randrange(1, 12)):
            fn = fns[rng.randrange(2000)]
            buf.append("%d:PUSH:%d:%d:None:%s\n" % (t, stack_id, len(open_fns), fn))
            open_fns.append(fn)
            t += rng.randrange(0, 4)
        while open_fns:
            fn = open_fns.pop()
            buf.append("%d:POP:%d:%d:None:%s\n" % (t, stack_id, len(open_fns), fn))
            t += rng.randrange(0, 4)
        chunk = "".join(buf)
        w.write(chunk)
        size += len(chunk)
    w.write("Log closed\n")


def main():
    fmt, mb, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rng = random.Random(18)
    with open(out, "w") as w:
        {"instruments": instruments, "pmcstat": pmcstat, "papyrus": papyrus}[fmt](
            rng, mb * 1000 * 1000, w)


if __name__ == "__main__":
    main()
