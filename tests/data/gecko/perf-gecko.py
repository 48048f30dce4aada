# The output of perf's gecko.py (tools/perf/scripts/python/gecko.py,
# Linux 6.7+), which this perf lacks: same tables, same strings, same meta.
import os, sys, json
sys.path.append(os.environ['PERF_EXEC_PATH'] + '/scripts/python/Perf-Trace-Util/lib/Perf/Trace')
from perf_trace_context import *
from Core import *
start_time = None
threads = {}
class T:
    def __init__(s, comm, pid, tid):
        s.comm, s.pid, s.tid = comm, pid, tid
        s.samples, s.frames, s.strings, s.smap, s.stacks, s.stmap, s.fmap = [], [], [], {}, [], {}, {}
    def string(s, x):
        if x not in s.smap:
            s.smap[x] = len(s.strings); s.strings.append(x)
        return s.smap[x]
    def frame(s, x):
        if x not in s.fmap:
            s.fmap[x] = len(s.frames)
            cat = 1 if ('kallsyms' in x or '/vmlinux' in x or x.endswith('.ko)')) else 0
            s.frames.append([s.string(x), False, 0, None, None, None, None, cat, None])
        return s.fmap[x]
    def stack(s, f, p):
        k = f"{f}" if p is None else f"{f},{p}"
        if k not in s.stmap:
            s.stmap[k] = len(s.stacks); s.stacks.append([p, f])
        return s.stmap[k]
    def add(s, comm, stack, t):
        s.comm = comm
        p = None
        for fr in stack:
            p = s.stack(s.frame(fr), p)
        if p is not None:
            s.samples.append([p, t, 0])
    def js(s):
        return {"tid": s.tid, "pid": s.pid, "name": s.comm,
            "markers": {"schema": {"name": 0, "startTime": 1, "endTime": 2, "phase": 3, "category": 4, "data": 5}, "data": []},
            "samples": {"schema": {"stack": 0, "time": 1, "responsiveness": 2}, "data": s.samples},
            "frameTable": {"schema": {"location": 0, "relevantForJS": 1, "innerWindowID": 2, "implementation": 3, "optimizations": 4, "line": 5, "column": 6, "category": 7, "subcategory": 8}, "data": s.frames},
            "stackTable": {"schema": {"prefix": 0, "frame": 1}, "data": s.stacks},
            "stringTable": s.strings, "registerTime": 0, "unregisterTime": None, "processType": "default"}
def process_event(d):
    global start_time
    t = (d['sample']['time'] // 1000) / 1000
    if not start_time:
        start_time = t
    stack = []
    if d['callchain']:
        for c in d['callchain']:
            if 'sym' not in c:
                continue
            stack.append(f'{c["sym"]["name"]} (in {c["dso"]})')
        stack = stack[::-1]
    else:
        stack.append(f"{d.get('symbol', '[unknown]')} (in {d.get('dso', '[unknown]')})")
    tid = d['sample']['tid']
    if tid not in threads:
        threads[tid] = T(d['comm'], d['sample']['pid'], tid)
    threads[tid].add(d['comm'], stack, t)
def trace_end():
    cats = [{"name": "User", "color": "yellow", "subcategories": ["Other"]},
            {"name": "Kernel", "color": "orange", "subcategories": ["Other"]}]
    out = {"meta": {"interval": 1, "processType": 0, "product": os.popen('uname -op').read().strip(),
        "stackwalk": 1, "debug": 0, "gcpoison": 0, "asyncstack": 1, "startTime": start_time,
        "shutdownTime": None, "version": 24, "presymbolicated": True, "categories": cats, "markerSchema": []},
        "libs": [], "threads": [t.js() for t in threads.values()], "processes": [], "pausedRanges": []}
    with open(os.environ['GECKO_OUT'], 'w') as f:
        json.dump(out, f, indent=2)
