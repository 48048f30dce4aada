#!/usr/bin/env python3
"""Write the small pprof profiles of tests/data/pprof/, byte by byte (Go is
not needed): run it from the top of the source tree after changing it.

  cpu.pb.gz   a CPU profile as Go writes it: gzipped, packed numbers,
              samples before the tables, inlined functions, two sample
              types and no default_sample_type (so cpu/nanoseconds shows).
  heap.pb     a heap profile, not gzipped, with the tables first, numbers
              unpacked, labels, an unknown field, four sample types and
              default_sample_type inuse_space.
"""
import gzip


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


def f_len(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def f_int(num, v):
    return varint(num << 3) + varint(v & 0xffffffffffffffff)


class Strings:
    def __init__(self):
        self.table = [""]

    def __call__(self, s):
        if s not in self.table:
            self.table.append(s)
        return self.table.index(s)

    def encode(self):
        return b"".join(f_len(6, s.encode()) for s in self.table)


# Functions: (name, file, start_line). Locations: function indexes,
# innermost inlined first.
FUNCS = [
    ("runtime.main", "/usr/lib/go/src/runtime/proc.go", 144),
    ("main.main", "/home/dev/app/main.go", 10),
    ("main.parse", "/home/dev/app/parse.go", 20),
    ("strings.Index", "/usr/lib/go/src/strings/strings.go", 1100),
    ("main.render", "/home/dev/app/render.go", 5),
    ("main.(*buf).grow", "/home/dev/app/render.go", 60),
    ("runtime.mallocgc", "/usr/lib/go/src/runtime/malloc.go", 900),
]
LOCS = [[0], [1], [3, 2], [2], [5, 4], [6]]


def tables(s, packed_lines=True):
    out = f_len(3, f_int(1, 1) + f_int(2, 0x400000) + f_int(3, 0x800000) +
                f_int(5, s("/home/dev/app/app")))
    for i, (name, fname, line) in enumerate(FUNCS):
        out += f_len(5, f_int(1, i + 1) + f_int(2, s(name)) + f_int(3, s(name)) +
                     f_int(4, s(fname)) + f_int(5, line))
    for i, funcs in enumerate(LOCS):
        lines = b"".join(f_len(4, f_int(1, fn + 1) + f_int(2, FUNCS[fn][2] + 3))
                         for fn in funcs)
        out += f_len(4, f_int(1, i + 1) + f_int(2, 1) + f_int(3, 0x401000 + 16 * i) + lines)
    return out


def sample(locs, values, packed):
    if packed:
        body = f_len(1, b"".join(varint(l) for l in locs))
        body += f_len(2, b"".join(varint(v & 0xffffffffffffffff) for v in values))
    else:
        body = b"".join(f_int(2, v) for v in values)
        body += f_len(3, f_int(1, 99) + f_int(3, 7))  # a label
        body += b"".join(f_int(1, l) for l in locs)
    return f_len(2, body)


def cpu():
    s = Strings()
    out = f_len(1, f_int(1, s("samples")) + f_int(2, s("count")))
    out += f_len(1, f_int(1, s("cpu")) + f_int(2, s("nanoseconds")))
    stacks = [([3, 2, 1], 5), ([4, 2, 1], 2), ([5, 2, 1], 3), ([6, 5, 2, 1], 1), ([2, 1], 1)]
    for locs, n in stacks:
        out += sample(locs, [n, n * 10000000], True)
    out += tables(s)
    out += f_int(9, 1700000000123456789) + f_int(10, 1500000000)
    out += f_len(11, f_int(1, s("cpu")) + f_int(2, s("nanoseconds"))) + f_int(12, 10000000)
    out += s.encode()
    return gzip.compress(out, mtime=0)


def heap():
    s = Strings()
    types = [("alloc_objects", "count"), ("alloc_space", "bytes"),
             ("inuse_objects", "count"), ("inuse_space", "bytes")]
    tbl = tables(s)
    rest = f_int(77, 5)  # a field newer than this reader
    for t, u in types:
        rest += f_len(1, f_int(1, s(t)) + f_int(2, s(u)))
    rest += sample([6, 5, 2, 1], [4, 4096, 1, 1024], False)
    rest += sample([6, 2, 1], [2, 512, 0, 0], False)
    rest += sample([6, 1], [1, 65536, 1, 65536], False)
    rest += f_int(14, s("inuse_space"))
    # The string table first, though it is written last.
    return s.encode() + tbl + rest


open("tests/data/pprof/cpu.pb.gz", "wb").write(cpu())
open("tests/data/pprof/heap.pb", "wb").write(heap())
