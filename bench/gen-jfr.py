#!/usr/bin/env python3
"""Write a synthetic Java Flight Recorder recording, laid out as the JDK
writes one: chunks of a 68-byte header, events (LEB128 integers, sizes
padded to four bytes as the JVM pads them), checkpoints holding the
constant pools (threads, stack traces, methods, classes, symbols), and a
metadata event declaring the types with the JDK's names and fields.

Events: jdk.ExecutionSample (most), jdk.ObjectAllocationInNewTLAB, and
jdk.CPULoad, which tflame skips. A new chunk starts every --chunk-mb of
events, with its own metadata and pools, as a long recording has.

usage: gen-jfr.py [--mb N | --events N] [--chunk-mb N] [--seed N] OUT
"""
import argparse
import random
import struct


def varint(v, out):
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def string(s, out):
    if s is None:
        out.append(0)
        return
    b = s.encode()
    out.append(3)
    varint(len(b), out)
    out += b


def event(body, out):
    size = len(body) + 4
    out += bytes((0x80 | (size & 0x7F), 0x80 | (size >> 7 & 0x7F),
                  0x80 | (size >> 14 & 0x7F), size >> 21 & 0x7F))
    out += body


# Type ids and fields: (name, type id, array, constant pool).
TYPES = [
    (1, "long", None, []),
    (2, "int", None, []),
    (3, "boolean", None, []),
    (4, "float", None, []),
    (5, "java.lang.String", None, []),
    (20, "java.lang.Thread", None, [("osName", 5, 0, 0), ("osThreadId", 1, 0, 0),
                                    ("javaName", 5, 0, 0), ("javaThreadId", 1, 0, 0)]),
    (21, "jdk.types.StackTrace", None, [("truncated", 3, 0, 0), ("frames", 30, 1, 0)]),
    (30, "jdk.types.StackFrame", None, [("method", 22, 0, 1), ("lineNumber", 2, 0, 0),
                                        ("bytecodeIndex", 2, 0, 0), ("type", 31, 0, 1)]),
    (31, "jdk.types.FrameType", None, [("description", 5, 0, 0)]),
    (22, "jdk.types.Method", None, [("type", 23, 0, 1), ("name", 24, 0, 1),
                                    ("descriptor", 24, 0, 1), ("modifiers", 2, 0, 0),
                                    ("hidden", 3, 0, 0)]),
    (23, "java.lang.Class", None, [("name", 24, 0, 1), ("package", 25, 0, 1),
                                   ("modifiers", 2, 0, 0), ("hidden", 3, 0, 0)]),
    (25, "jdk.types.Package", None, [("name", 24, 0, 1)]),
    (24, "jdk.types.Symbol", None, [("string", 5, 0, 0)]),
    (26, "jdk.types.ThreadState", None, [("name", 5, 0, 0)]),
    (101, "jdk.ExecutionSample", "jdk.jfr.Event",
     [("startTime", 1, 0, 0), ("sampledThread", 20, 0, 1), ("stackTrace", 21, 0, 1),
      ("state", 26, 0, 1)]),
    (102, "jdk.ObjectAllocationInNewTLAB", "jdk.jfr.Event",
     [("startTime", 1, 0, 0), ("eventThread", 20, 0, 1), ("stackTrace", 21, 0, 1),
      ("objectClass", 23, 0, 1), ("allocationSize", 1, 0, 0), ("tlabSize", 1, 0, 0)]),
    (103, "jdk.CPULoad", "jdk.jfr.Event",
     [("startTime", 1, 0, 0), ("jvmUser", 4, 0, 0), ("jvmSystem", 4, 0, 0),
      ("machineTotal", 4, 0, 0)]),
]


def metadata(out):
    strings = {}

    def s(x):
        if x not in strings:
            strings[x] = len(strings)
        return strings[x]

    tree = bytearray()

    def element(name, attrs, nkids):
        varint(s(name), tree)
        varint(len(attrs), tree)
        for k, v in attrs:
            varint(s(k), tree)
            varint(s(v), tree)
        varint(nkids, tree)

    element("root", [], 2)
    element("metadata", [], len(TYPES))
    for tid, name, sup, fields in TYPES:
        attrs = [("name", name), ("id", str(tid))]
        if sup:
            attrs.append(("superType", sup))
        element("class", attrs, len(fields))
        for fname, ftype, arr, pool in fields:
            fa = [("name", fname), ("class", str(ftype))]
            if arr:
                fa.append(("dimension", "1"))
            if pool:
                fa.append(("constantPool", "true"))
            element("field", fa, 0)
    element("region", [("locale", "en_US"), ("gmtOffset", "0")], 0)
    body = bytearray()
    for v in (0, 0, 0, 1):
        varint(v, body)
    varint(len(strings), body)
    for x in strings:
        string(x, body)
    body += tree
    event(body, out)


class World:
    """The program being recorded: packages, classes, methods, threads and
    the stack traces they run, the same in every chunk."""

    def __init__(self, rng, scale):
        self.symbols = []
        self.packages = ["com/example/p%d" % i for i in range(max(4, scale // 200))]
        self.classes = []
        for i in range(max(8, scale // 10)):
            self.classes.append((rng.randrange(len(self.packages)), "C%d" % i))
        self.classes += [(0, "[I"), (0, "[B"), (0, "java/lang/String")]
        self.methods = []
        for i in range(max(16, scale)):
            self.methods.append((rng.randrange(len(self.classes) - 3), "m%d" % i))
        self.threads = ["worker-%d" % i for i in range(16)]
        self.traces = []
        for i in range(max(8, scale * 4)):
            depth = rng.randrange(4, 64)
            self.traces.append([rng.randrange(len(self.methods)) for _ in range(depth)])

    def pools(self, out):
        """A checkpoint with every pool; keys are indexes + 1."""
        body = bytearray()
        for v in (1, 0, 0, 0):
            varint(v, body)
        body.append(0)
        varint(8, body)
        syms = {}

        def sym(x):
            if x not in syms:
                syms[x] = len(syms) + 1
            return syms[x]

        varint(20, body)
        varint(len(self.threads), body)
        for i, t in enumerate(self.threads):
            varint(i + 1, body)
            string(t, body)
            varint(1000 + i, body)
            string(t, body)
            varint(i + 2, body)
        varint(21, body)
        varint(len(self.traces), body)
        for i, tr in enumerate(self.traces):
            varint(i + 1, body)
            body.append(0)
            varint(len(tr), body)
            for k, m in enumerate(tr):
                varint(m + 1, body)
                varint(10 + k, body)
                varint(k, body)
                varint(1, body)
        varint(31, body)
        varint(1, body)
        varint(1, body)
        string("JIT compiled", body)
        varint(22, body)
        varint(len(self.methods), body)
        for i, (c, name) in enumerate(self.methods):
            varint(i + 1, body)
            varint(c + 1, body)
            varint(sym(name), body)
            varint(sym("()V"), body)
            varint(1, body)
            body.append(0)
        varint(23, body)
        varint(len(self.classes), body)
        for i, (p, name) in enumerate(self.classes):
            varint(i + 1, body)
            full = name if name.startswith("[") or "/" in name else self.packages[p] + "/" + name
            varint(sym(full), body)
            varint(p + 1, body)
            varint(1, body)
            body.append(0)
        varint(25, body)
        varint(len(self.packages), body)
        for i, p in enumerate(self.packages):
            varint(i + 1, body)
            varint(sym(p), body)
        varint(26, body)
        varint(1, body)
        varint(1, body)
        string("STATE_RUNNABLE", body)
        varint(24, body)
        varint(len(syms), body)
        for x, k in syms.items():
            varint(k, body)
            string(x, body)
        event(body, out)


def chunk(f, world, rng, nevents, ticks):
    out = bytearray(68)
    ntraces, nthreads = len(world.traces), len(world.threads)
    nclasses = len(world.classes)
    for i in range(nevents):
        ticks += rng.randrange(1, 20000)
        body = bytearray()
        r = i % 16
        if r < 13:
            varint(101, body)
            varint(ticks, body)
            varint(1 + i % nthreads, body)
            varint(1 + (i * 7919) % ntraces, body)
            varint(1, body)
        elif r < 15:
            varint(102, body)
            varint(ticks, body)
            varint(1 + i % nthreads, body)
            varint(1 + (i * 104729) % ntraces, body)
            varint(nclasses - r % 3, body)
            varint(24 + i % 1000, body)
            varint(1 << 16, body)
        else:
            varint(103, body)
            varint(ticks, body)
            body += struct.pack(">fff", 0.5, 0.1, 0.7)
        event(body, out)
    world.pools(out)
    meta = len(out)
    metadata(out)
    out[0:68] = b"FLR\0" + struct.pack(">HHqqqqqqqi", 2, 1, len(out), 0, meta,
                                         1700000000000000000, 0, 5000, 1000000000, 0)
    f.write(out)
    return ticks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=0)
    ap.add_argument("--events", type=int, default=0)
    ap.add_argument("--chunk-mb", type=float, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("out")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    ticks = 5000
    with open(a.out, "wb") as f:
        if a.events:
            world = World(rng, max(4, a.events // 50))
            chunk(f, world, rng, a.events, ticks)
            return
        # Chunks of about chunk_mb of events, until the file has mb.
        world = World(rng, 5000)
        per_chunk = int(a.chunk_mb * 1e6 / 11)
        while f.tell() < a.mb * 1e6:
            ticks = chunk(f, world, rng, per_chunk, ticks)

main()
