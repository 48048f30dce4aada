# A small program for tflame's cProfile tests: json.dumps and json.loads,
# whose full paths look alike, called from functions of its own.
#
#   python3 -m cProfile -o jsonwork.prof jsonwork.py (then record.py: see there)
import json


def make(n):
    return [{"id": i, "name": "row%d" % i, "tags": ["a", "b"], "v": i / 7} for i in range(n)]


def encode(rows):
    return [json.dumps(r) for r in rows]


def decode(texts):
    return [json.loads(t) for t in texts]


def main():
    total = 0
    for _ in range(30):
        rows = make(200)
        total += len(decode(encode(rows)))
    print(total)


main()
