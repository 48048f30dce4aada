#!/usr/bin/env python3
"""Write a synthetic pprof CPU profile of at least SIZE megabytes (raw
protobuf; gzip it for the usual form) for bench/pprof-bench.sh.

Usage: gen-pprof.py SIZE_MB OUT

It looks like what Go writes: sample types (samples/count, cpu/nanoseconds),
then samples (packed location ids, leaf first; two values), then mappings,
locations (some with inlined lines), functions and the string table. Call
paths come from a fixed-seed random tree, so runs are reproducible.
"""
import random
import sys


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_len(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def field_int(num, v):
    return varint(num << 3) + varint(v)


def main():
    size = int(sys.argv[1]) * 1000 * 1000
    out = open(sys.argv[2], "wb")
    rng = random.Random(42)
    strings = [""]
    index = {"": 0}

    def s(x):
        if x not in index:
            index[x] = len(strings)
            strings.append(x)
        return index[x]

    for t, u in (("samples", "count"), ("cpu", "nanoseconds")):
        out.write(field_len(1, field_int(1, s(t)) + field_int(2, s(u))))
    nfunc, nloc = 20000, 60000
    # A random call tree over locations: each location has a parent.
    parent = [0] * (nloc + 1)
    for i in range(2, nloc + 1):
        parent[i] = rng.randint(max(1, i - 2000), i - 1)
    paths = []
    for _ in range(20000):
        leaf = rng.randint(nloc // 2, nloc)
        ids = []
        while leaf:
            ids.append(leaf)
            leaf = parent[leaf]
            if len(ids) >= 64:
                break
        packed = b"".join(varint(i) for i in ids)
        paths.append(field_len(1, packed))
    written = 0
    chunk = []
    while written < size:
        p = paths[rng.randrange(len(paths))]
        n = rng.randint(1, 50)
        vals = varint(n) + varint(n * 10000000)
        rec = field_len(2, p + field_len(2, vals))
        chunk.append(rec)
        written += len(rec)
        if len(chunk) >= 10000:
            out.write(b"".join(chunk))
            chunk = []
    out.write(b"".join(chunk))
    out.write(field_len(3, field_int(1, 1) + field_int(5, s("/usr/bin/bench"))))
    for i in range(1, nloc + 1):
        lines = field_len(4, field_int(1, (i % nfunc) + 1) + field_int(2, i % 500))
        if i % 7 == 0:  # an inlined callee first
            lines = field_len(4, field_int(1, ((i * 13) % nfunc) + 1)) + lines
        out.write(field_len(4, field_int(1, i) + field_int(2, 1) + field_int(3, 0x400000 + i * 16) + lines))
    for i in range(1, nfunc + 1):
        name = s("pkg%d.func%d" % (i % 97, i))
        out.write(field_len(5, field_int(1, i) + field_int(2, name) + field_int(3, name) +
                            field_int(4, s("src/pkg%d/file%d.go" % (i % 97, i % 300))) +
                            field_int(5, i % 1000 + 1)))
    out.write(b"".join(field_len(6, x.encode()) for x in strings))
    out.write(field_int(9, 1700000000000000000) + field_int(10, 30000000000) +
              field_len(11, field_int(1, s("cpu")) + field_int(2, s("nanoseconds"))) +
              field_int(12, 10000000))
    out.close()


main()
