# Re-record a profile (run in this directory with python3):
#
#   python3 -m cProfile -o imports.prof imports.py && python3 record.py imports.prof
#   python3 -m cProfile -o jsonwork.prof jsonwork.py && \
#       python3 record.py jsonwork.prof /usr/lib/python3.11/
#
# The file names of the standard library's modules are machine paths:
# they are made the same on every machine (PREFIX, /usr/lib/python3/ by
# default), and nothing else changes.
import marshal
import os
import sys
import sysconfig

stdlib = sysconfig.get_paths()["stdlib"]
path = sys.argv[1] if len(sys.argv) > 1 else "imports.prof"
prefix = sys.argv[2] if len(sys.argv) > 2 else "/usr/lib/python3/"


def fix(key):
    file, line, name = key
    if file.startswith(stdlib + os.sep):
        file = prefix + file[len(stdlib) + 1:]
    return (file, line, name)


with open(path, "rb") as f:
    stats = marshal.load(f)
out = {}
for func, (cc, nc, tt, ct, callers) in stats.items():
    out[fix(func)] = (cc, nc, tt, ct, {fix(c): v for c, v in callers.items()})
with open(path, "wb") as f:
    marshal.dump(out, f)
