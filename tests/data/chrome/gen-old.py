#!/usr/bin/env python3
"""Write old-timestamps.cpuprofile: the old .cpuprofile form, as Chrome's
DevTools saved it before the nodes array (about 2016) and as speedscope's
importer reads it: {head: {functionName, scriptId, url, lineNumber,
columnNumber, hitCount, callUID, children, deoptReason, id, positionTicks},
startTime, endTime (seconds), samples (node ids), timestamps (us)}, with
V8's key order (id after the children) and ids in no tree order. As in
the profiles node 10 wrote in this form, there is one timestamp more than
samples: where the last sample ends.

    python3 gen-old.py >old-timestamps.cpuprofile
"""

import json
import random
import sys

random.seed(7)
APP = "http://localhost:8080/app.js"


def node(id, name, url="", line=0, children=()):
    return {"functionName": name, "scriptId": "71" if url else "0", "url": url,
            "lineNumber": line, "columnNumber": 10 if url else 0, "hitCount": 0,
            "callUID": 1000 + id, "children": list(children), "deoptReason": "",
            "id": id, "positionTicks": []}


tree = node(1, "(root)", children=[
    node(9, "", APP, 0, children=[
        node(4, "main", APP, 3, children=[
            node(11, "parse", APP, 20, children=[node(6, "lex", APP, 41)]),
            node(2, "render", APP, 60, children=[node(13, "layout", APP, 77)]),
        ]),
    ]),
    node(3, "(program)"),
    node(8, "(garbage collector)"),
    node(5, "(idle)"),
])
leaves = [6, 11, 13, 2, 4, 3, 8, 5, 6, 6, 13]
samples, stamps = [], []
t = 1490123456 + 210
for _ in range(40):
    samples.append(random.choice(leaves))
    stamps.append(t)
    t += random.choice([998, 1001, 1003, 1240, 2001, 997])
stamps.append(t)

hits = {}
for s in samples:
    hits[s] = hits.get(s, 0) + 1
todo = [tree]
while todo:
    n = todo.pop()
    n["hitCount"] = hits.get(n["id"], 0)
    todo.extend(n["children"])

json.dump({"head": tree, "startTime": 1490.123456, "endTime": round((t + 500) / 1e6, 6),
           "samples": samples, "timestamps": stamps}, sys.stdout, separators=(",", ":"))
