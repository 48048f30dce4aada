#!/usr/bin/env python3
"""Folded stacks of one event type of a JFR recording, from the JSON that
the JDK's own reader writes (jfr print --json --stack-depth N --events T),
named and weighed as tflame's JFR importer documents it: a frame is
"package.Class.method", an allocation's stack ends with the class
allocated, and allocations weigh tlabSize (in a new TLAB), allocationSize
(outside one) or weight (ObjectAllocationSample) bytes; samples weigh 1.
Events with a zero weight are left out, as the importer leaves them out.

usage: jfr-folded.py EVENTS.json EVENT-TYPE
"""
import json
import sys

WEIGHT = {
    "jdk.ObjectAllocationInNewTLAB": "tlabSize",
    "jdk.ObjectAllocationOutsideTLAB": "allocationSize",
    "jdk.ObjectAllocationSample": "weight",
}
PRIM = {"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int",
        "J": "long", "S": "short", "Z": "boolean"}


def class_name(c):
    name = c["name"]
    dims = len(name) - len(name.lstrip("["))
    if dims:
        elem = name[dims:]
        if elem.startswith("L") and elem.endswith(";"):
            elem = elem[1:-1]
        else:
            elem = PRIM.get(elem, elem)
        name = elem + "[]" * dims
    return name.replace("/", ".")


def main():
    doc = json.load(open(sys.argv[1]))
    etype = sys.argv[2]
    folded = {}
    for ev in doc["recording"]["events"]:
        if ev["type"] != etype:
            continue
        v = ev["values"]
        w = v[WEIGHT[etype]] if etype in WEIGHT else 1
        if not w:
            continue
        frames = []
        if etype in WEIGHT:
            frames.append(class_name(v["objectClass"]))
        st = v.get("stackTrace") or {"frames": []}
        for f in st["frames"]:
            m = f["method"]
            frames.append(class_name(m["type"]) + "." + m["name"])
        key = ";".join(reversed(frames))
        folded[key] = folded.get(key, 0) + w
    for k in sorted(folded):
        print("%s %d" % (k, folded[k]))


main()
