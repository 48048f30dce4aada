"""JavaScript function names as tflame's V8 importers give them (jsframes.h),
for the tests that compute a .cpuprofile's or a .heapprofile's numbers
from the file alone (json-arith.py, json-formats.py).

A function is its call frame's name, url, line and column, as Chrome
DevTools and speedscope key it: js_key() makes that key of a callFrame,
js_functions() names a set of keys: (shown name, module).
"""

import re


def url_part(url):
    """Where a URL's last path part is, without a query or fragment: (s, e);
    the whole URL when that part is empty."""
    m = re.search(r"[?#]", url)
    e = m.start() if m else len(url)
    s = url.rfind("/", 0, e) + 1
    return (0, len(url)) if s == e else (s, e)


def url_base(url):
    s, e = url_part(url)
    return url[s:e]


def js_module(url):
    """The module of a script (jsframes.h): a node: URL whole, a file under
    node_modules from its package on, else the URL's last part."""
    if not url:
        return ""
    if url.startswith("node:") and len(url) > 5:
        return url
    s, e = url_part(url)
    k = url.rfind("/node_modules/", 0, s)
    if k >= 0 and k + 14 < s:
        s = k + 14
    return url[s:e]


def js_position(url, line, col):
    pos = " " + url_base(url)
    if line >= 0:
        pos += ":%d" % (line + 1)
        if col >= 0:
            pos += ":%d" % (col + 1)
    return pos


def js_functions(call_frames):
    """(name, url, line, col) keys -> (shown name, module): an anonymous
    function is "(anonymous) BASE:LINE:COL", a named one keeps its name
    unless another of its name and module lies elsewhere."""
    count = {}
    for name, url, line, col in call_frames:
        if name and url:
            k = (name, js_module(url))
            count[k] = count.get(k, 0) + 1
    out = {}
    for key in call_frames:
        name, url, line, col = key
        mod = js_module(url)
        if not name:
            shown = "(anonymous)" + (js_position(url, line, col) if url else "")
        elif url and count[(name, mod)] > 1:
            shown = name + js_position(url, line, col)
        else:
            shown = name
        out[key] = (shown, mod)
    return out


def js_key(cf):
    line = int(cf.get("lineNumber", -1))
    line = line if line >= 0 else -1
    col = int(cf.get("columnNumber", -1)) if line >= 0 else -1
    return (cf.get("functionName") or "", cf.get("url") or "", line, col if col >= 0 else -1)
