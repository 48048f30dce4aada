#!/usr/bin/env python3
"""Generate a Chrome trace of many threads' CPU profiles, for Time Order.

usage: lanes-gen.py [THREADS [SAMPLES_PER_THREAD]] > out.json

Each thread (pid 1, tids 1..THREADS, named worker-N) has a ph:"P"
Profile and one ProfileChunk: a call tree of a few hundred nodes 3 to 24
deep, and samples every ~1 ms that mostly stay on the previous stack or a
near one (as a program spends time in a few functions at a time), with
idle stretches of 5 to 200 ms now and then, which Time Order shows as
gaps. Threads sample unevenly (the Nth of T about (T - N + 1) / T of
SAMPLES_PER_THREAD), so the lanes have an order: 128 threads of 44 000
make 3.1 M samples (time-keys.sh). Deterministic (fixed seed).
"""
import random
import sys

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 128
per = int(sys.argv[2]) if len(sys.argv) > 2 else 24000
rnd = random.Random(13)
out = sys.stdout
out.write('{"traceEvents": [\n')
first = True
for t in range(1, threads + 1):
    # The call tree: node 1 the root, each node's parent an earlier node.
    nodes = [(1, 0, "(root)", 0)]
    depth = {1: 0}
    for i in range(2, 400):
        while True:
            parent = rnd.randint(1, i - 1)
            if depth[parent] < 24:
                break
        depth[i] = depth[parent] + 1
        nodes.append((i, parent, "fn_%d" % rnd.randint(0, 2000), depth[i]))
    deep = [n[0] for n in nodes if n[3] >= 3]
    kids = {}
    for n in nodes:
        kids.setdefault(n[1], []).append(n[0])
    parent_of = {n[0]: n[1] for n in nodes}
    samples, deltas = [], []
    cur = rnd.choice(deep)
    # Lighter threads sample less: 10% to 100% of per.
    count = max(100, per * (threads - t + 1) // threads + rnd.randint(0, per // 10))
    for k in range(count):
        r = rnd.random()
        if r < 0.05:
            cur = rnd.choice(deep)
        elif r < 0.15 and cur in kids:
            cur = rnd.choice(kids[cur])
        elif r < 0.25 and depth[parent_of[cur]] >= 3:
            cur = parent_of[cur]
        samples.append(cur)
        d = 1000 + rnd.randint(-50, 50)
        if rnd.random() < 0.003:
            d += rnd.randint(5000, 200000)
        deltas.append(d)
    ev = []
    ev.append('{"pid": 1, "tid": %d, "ph": "M", "name": "thread_name", '
              '"args": {"name": "worker-%d"}}' % (t, t))
    ev.append('{"pid": 1, "tid": %d, "ph": "P", "name": "Profile", "id": "0x%x", '
              '"ts": 1000, "args": {"data": {"startTime": 1000}}}' % (t, t))
    nodes_json = ",".join(
        '{"id": %d%s, "callFrame": {"functionName": "%s", "scriptId": 1, '
        '"url": "app.js"}}' % (n[0], ', "parent": %d' % n[1] if n[1] else "", n[2])
        for n in nodes)
    ev.append('{"pid": 1, "tid": %d, "ph": "P", "name": "ProfileChunk", "id": "0x%x", '
              '"ts": 1000, "args": {"data": {"cpuProfile": {"nodes": [%s], "samples": [%s]}, '
              '"timeDeltas": [%s]}}}' % (t, t, nodes_json, ",".join(map(str, samples)),
                                         ",".join(map(str, deltas))))
    for e in ev:
        out.write(("" if first else ",\n") + e)
        first = False
out.write("\n]}\n")
