# Re-record imports.prof (run in this directory with python3):
#
#   python3 -m cProfile -o imports.prof imports.py && python3 record.py
#
# The file names of the standard library's modules are machine paths:
# they are made the same on every machine, and nothing else changes.
import marshal
import os
import sysconfig

stdlib = sysconfig.get_paths()["stdlib"]


def fix(key):
    path, line, name = key
    if path.startswith(stdlib + os.sep):
        path = "/usr/lib/python3/" + path[len(stdlib) + 1:]
    return (path, line, name)


with open("imports.prof", "rb") as f:
    stats = marshal.load(f)
out = {}
for func, (cc, nc, tt, ct, callers) in stats.items():
    out[fix(func)] = (cc, nc, tt, ct, {fix(c): v for c, v in callers.items()})
with open("imports.prof", "wb") as f:
    marshal.dump(out, f)
