# How the files here were made (run in this directory with python3):
#
#   python3 -m cProfile -o fib.prof fib.py
#   python3 gen.py
#
# gen.py rewrites fib.prof's data the ways older writers did, to cover
# the rest of marshal and pstats that tflame reads.
import marshal

with open("fib.prof", "rb") as f:
    stats = marshal.load(f)

# marshal version 1: floats as text ('f'), no references.
with open("v1.prof", "wb") as f:
    marshal.dump(stats, f, 1)

# marshal version 2: binary floats, still no references.
with open("v2.prof", "wb") as f:
    marshal.dump(stats, f, 2)

# The old profile module: a caller maps to a bare call count.
old = {}
for func, (cc, nc, tt, ct, callers) in stats.items():
    old[func] = (cc, nc, tt, ct, {c: v[0] for c, v in callers.items()})
with open("count-callers.prof", "wb") as f:
    marshal.dump(old, f)

# Call counts beyond 64 bits (marshal's 'l' longs) and a None where a
# number belongs, which is skipped with a warning.
odd = {
    ("big.py", 1, "main"): (1, 1, 0.5, 2.0, {}),
    ("big.py", 5, "spin"): (2**70, 2**70, 1.5, 1.5,
                            {("big.py", 1, "main"): (2**70, 2**70, 1.5, 1.5)}),
    ("big.py", 9, "bad"): (1, 1, None, 0.1, {}),
}
with open("bigint.prof", "wb") as f:
    marshal.dump(odd, f)
