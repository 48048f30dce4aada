#!/usr/bin/env python3
"""Shrink a node --prof-process --preprocess JSON for tests/data.

    prune.py PREFIX <full.v8log.json >small.v8log.json

A real log lists every code object of the process (tens of thousands,
megabytes): only the entries some tick names are kept, renumbered in
their order, with their name, type and kind. A tick's entries past the
code (addresses) stay as they are, and one equal to its length (no
entry) becomes the new length. PREFIX, a directory, is written as /src/
in names, so that no machine's path is kept. functions and scripts are
emptied (tflame, like speedscope, does not read them).
"""

import json
import sys

prefix = sys.argv[1].rstrip("/") + "/"
doc = json.load(sys.stdin)
code = doc["code"]
used = sorted({t["s"][i] for t in doc["ticks"] for i in range(0, len(t["s"]), 2)
               if 0 <= t["s"][i] < len(code)})
new = {old: i for i, old in enumerate(used)}
new[len(code)] = len(used)
for t in doc["ticks"]:
    s = t["s"]
    for i in range(0, len(s), 2):
        s[i] = new.get(s[i], s[i])
out = {
    "code": [{k: code[i][k].replace(prefix, "/src/") if k == "name" else code[i][k]
              for k in ("name", "type", "kind") if k in code[i]} for i in used],
    "functions": [],
    "ticks": doc["ticks"],
    "scripts": [],
}
json.dump(out, sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
