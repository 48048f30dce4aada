#!/bin/sh
# tflame export: the SVG is well-formed XML whose boxes are flamegraph.pl's
# (by a model of its algorithm here, and by the script itself when
# FLAMEGRAPH_PL names it), the speedscope JSON is what its schema asks,
# and the round trips hold: speedscope JSON read back gives the same
# report, folded stacks read back the same Left Heavy.

. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 99

command -v python3 >/dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }

perf=tests/data/recorded/multi-process.txt
folded=tests/data/folded/basic.txt

# The boxes of an SVG flame graph, one "depth<TAB>width<TAB>name" line per
# box, sorted: depth counted from the root, the width in pixels (with
# "geometry", the name after the box's x). Both
# tflame's and flamegraph.pl's SVG hold each box as a <g> with a <title>
# ("name (figures)") and a <rect>.
cat >"$tmpdir/boxes.py" <<'EOF'
import re, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
icicle = len(sys.argv) > 2 and sys.argv[2] == 'icicle'
fills = len(sys.argv) > 2 and sys.argv[2] == 'fills'
geometry = len(sys.argv) > 2 and sys.argv[2] == 'geometry'
boxes = []
for g in root.iter(NS + 'g'):
    title, rect = g.find(NS + 'title'), g.find(NS + 'rect')
    if title is None or rect is None:
        continue
    name = re.sub(r' \([^(]*\)$', '', title.text or '')
    if fills and name != 'all':
        name += '\t' + rect.get('fill') + '\t' + title.text.rsplit('; ', 1)[-1]
    if geometry:
        name = '%.1f\t%s' % (float(rect.get('x')), name)
    boxes.append((float(rect.get('y')), float(rect.get('width')), name))
ys = sorted({b[0] for b in boxes}, reverse=not icicle)
for d, w, name in sorted((ys.index(y), w, name) for y, w, name in boxes):
    print('%d\t%.1f\t%s' % (d, w, name))
EOF

# flamegraph.pl's boxes of a folded file, after its algorithm: the lines
# sorted and merged into a tree (a frame per name under each parent), the
# widths (width - 20) * count / total, and boxes narrower than minwidth px
# left out with what is above them.
cat >"$tmpdir/model.py" <<'EOF'
# With a second count (a differential file), the second is the width, and
# each box's fill and title say the change of the lines ending in it,
# against the biggest change of a line (at least 1), as its color_scale().
import re, sys
lines = [l.rstrip('\n') for l in open(sys.argv[1]) if l.strip()]
minwidth = float(sys.argv[2] or 0.1)
tree, total, maxdelta, diff = {}, 0, 1, False
for l in lines:
    parts = l.rsplit(' ', 2)
    if len(parts) == 3 and all(p.replace('.', '', 1).isdigit() for p in parts[1:]):
        stack, before, count = parts[0], float(parts[1]), float(parts[2])
        diff = True
    else:
        stack, count = l.rsplit(' ', 1)
        before = count = float(count)
    total += count
    maxdelta = max(maxdelta, abs(count - before))
    # Perl's split: empty fields at the end go, the others stay.
    node, path = tree, stack.split(';')
    while path and path[-1] == '':
        path.pop()
    for i, f in enumerate(path):
        kid = node.setdefault(f, [0, {}, 0])
        kid[0] += count
        if i == len(path) - 1:
            kid[2] += count - before
        node = kid[1]
def fill(d):
    r = g = b = 255
    if d > 0:
        g = b = int(210 * (maxdelta - d) / maxdelta)
    elif d < 0:
        r = g = int(210 * (maxdelta + d) / maxdelta)
    return 'rgb(%d,%d,%d)' % (r, g, b)
per = 1180.0 / total
out = ['0\t%.1f\tall' % (total * per)]
todo = [(tree, 1)]
while todo:
    node, depth = todo.pop()
    for name, (w, kids, d) in node.items():
        if w * per < minwidth:
            continue
        # Titles and labels lose the annotations of stackcollapse-perf.pl.
        if re.search(r'_\[[kwij]\]$', name):
            name = name[:-4]
        if diff:
            pct = '%.2f' % (100 * d / total)
            name += '\t%s\t%s%s%%)' % (fill(d), '+' if d > 0 else '', pct)
        out.append('%d\t%.1f\t%s' % (depth, w * per, name))
        todo.append((kids, depth + 1))
for l in sorted(out, key=lambda l: (int(l.split('\t')[0]), l.split('\t', 2)[2], l)):
    print(l)
EOF

# Boxes tile: each box's children lie within it, side by side with no
# overlap, as both edges of every box are rounded as flamegraph.pl rounds
# them (a width rounded on its own runs 0.1 px into the next box, or
# short of it). Prints how many edges neighbours share.
cat >"$tmpdir/tiles.py" <<'EOF'
import sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
rows = {}
for g in ET.parse(sys.argv[1]).getroot().iter(NS + 'g'):
    r = g.find(NS + 'rect')
    if r is None:
        continue
    x, w = round(float(r.get('x')) * 10), round(float(r.get('width')) * 10)
    rows.setdefault(float(r.get('y')), []).append((x, x + w))
ys = sorted(rows)
shared = 0
for y in ys:
    spans = sorted(rows[y])
    for (a0, a1), (b0, b1) in zip(spans, spans[1:]):
        if b0 < a1:
            sys.exit('overlap at y=%s: %s and %s' % (y, (a0, a1), (b0, b1)))
        shared += b0 == a1
if len(sys.argv) > 2 and sys.argv[2] == 'icicle':
    ys.reverse()
for up, down in zip(ys, ys[1:]):
    # The row nearer the root holds the parents.
    parents = sorted(rows[down])
    for k0, k1 in sorted(rows[up]):
        if not any(p0 <= k0 and k1 <= p1 for p0, p1 in parents):
            sys.exit('box %s at y=%s is under no box' % ((k0, k1), up))
print('%d shared edges' % shared)
EOF

# Boxes equal up to 0.1 px of rounding (flamegraph.pl rounds both edges).
same_boxes() {
	python3 - "$1" "$2" <<'EOF'
import sys
def read(p):
    rows = [l.rstrip('\n').split('\t', 2) for l in open(p)]
    return sorted((int(d), n, float(w)) for d, w, n in rows)
a, b = read(sys.argv[1]), read(sys.argv[2])
if len(a) != len(b):
    print('%d boxes against %d' % (len(a), len(b)))
    sys.exit(1)
for x, y in zip(a, b):
    if x[0] != y[0] or x[1] != y[1] or abs(x[2] - y[2]) > 0.11:
        print('box %r against %r' % (x, y))
        sys.exit(1)
EOF
}

# --- SVG: XML, and flamegraph.pl's boxes ------------------------------------
# Folded stacks by hand, of recorded perf profiles, and of empty and blank
# frames; at flamegraph.pl's default minimum width (0.1 px: every box it
# draws) and at 60 px.
"$TFLAME" collapse "$perf" >"$tmpdir/perf.folded" || exit 99
"$TFLAME" collapse tests/data/recorded/threads.txt.gz >"$tmpdir/threads.folded" || exit 99
"$TFLAME" collapse --all tests/data/perf/kernel-jit.txt >"$tmpdir/annotated.folded" || exit 99
printf '%s\n' ';x 1' '; 5' ';;; 9' 'a 5' 'a; ;c 2' 'a;;b 3' 'a;b 6' 'a;b; 4' 'a;b;; 7' \
	'a;b;c  d 1.25' ' lead;trail 2' | LC_ALL=C sort >"$tmpdir/edge.folded"
# The shared corpus's recordings too, where it is: thousands of boxes,
# many of them under a pixel.
corpus=${TFLAME_CORPUS:-$top_srcdir/../shared/corpus}/recorded
big=
for f in multi-event.perf.txt system-wide.perf.txt.gz; do
	[ -f "$corpus/$f" ] && [ -n "${FLAMEGRAPH_PL:-}" ] || continue
	"$TFLAME" collapse "$corpus/$f" >"$tmpdir/corpus-${f%%.*}.folded" 2>/dev/null || exit 99
	big="$big $tmpdir/corpus-${f%%.*}.folded"
done
for input in "$folded" "$tmpdir/perf.folded" "$tmpdir/threads.folded" "$tmpdir/annotated.folded" \
	"$tmpdir/edge.folded" $big; do
	for mw in default 60; do
		name="svg of $(basename "$input") --minwidth=$mw"
		set --
		[ $mw = default ] || set -- --minwidth=$mw
		if ! "$TFLAME" export --to=svg "$@" "$input" -o "$tmpdir/t.svg" 2>"$tmpdir/err"; then
			not_ok "$name" "$(cat "$tmpdir/err")"
			continue
		fi
		if ! python3 "$tmpdir/boxes.py" "$tmpdir/t.svg" >"$tmpdir/t.boxes" 2>"$tmpdir/err"; then
			not_ok "$name: not well-formed XML" "$(head -3 "$tmpdir/err")"
			continue
		fi
		python3 "$tmpdir/model.py" "$input" "${mw#default}" >"$tmpdir/m.boxes" || exit 99
		if out=$(same_boxes "$tmpdir/t.boxes" "$tmpdir/m.boxes"); then
			ok "$name: flamegraph.pl's boxes ($(wc -l <"$tmpdir/t.boxes") of them)"
		else
			not_ok "$name: boxes differ from flamegraph.pl's algorithm" "$out"
		fi
		if out=$(python3 "$tmpdir/tiles.py" "$tmpdir/t.svg"); then
			ok "$name: boxes tile, no gap or overlap ($out)"
		else
			not_ok "$name: boxes tile, no gap or overlap" "$out"
		fi
		[ -n "${FLAMEGRAPH_PL:-}" ] || continue
		perl "$FLAMEGRAPH_PL" "$@" "$input" >"$tmpdir/f.svg" 2>/dev/null || exit 99
		python3 "$tmpdir/boxes.py" "$tmpdir/f.svg" >"$tmpdir/f.boxes" || exit 99
		if out=$(same_boxes "$tmpdir/t.boxes" "$tmpdir/f.boxes"); then
			ok "$name: the boxes of flamegraph.pl ($(wc -l <"$tmpdir/f.boxes") of them)"
		else
			not_ok "$name: boxes differ from flamegraph.pl" "$out"
		fi
		# Where they are too: x and width as its, to the tenth.
		python3 "$tmpdir/boxes.py" "$tmpdir/t.svg" geometry >"$tmpdir/t.geo" || exit 99
		python3 "$tmpdir/boxes.py" "$tmpdir/f.svg" geometry >"$tmpdir/f.geo" || exit 99
		if diff "$tmpdir/f.geo" "$tmpdir/t.geo" >"$tmpdir/diff"; then
			ok "$name: every box where flamegraph.pl draws it"
		else
			not_ok "$name: every box where flamegraph.pl draws it" "$(head -6 "$tmpdir/diff")"
		fi
	done
done
[ -n "${FLAMEGRAPH_PL:-}" ] || echo "# FLAMEGRAPH_PL not set: compared with the model of flamegraph.pl only"

# Differential graphs: a file of before and after counts, and --diff of
# two files, have flamegraph.pl's colours and changes, red growing.
cat >"$tmpdir/base.txt" <<'EOF'
main;parse 30
main;run;compute 50
main;run;io 20
EOF
cat >"$tmpdir/new.txt" <<'EOF'
main;parse 10
main;run;compute 80
main;run;io 20
main;log 5
EOF
python3 - "$tmpdir/base.txt" "$tmpdir/new.txt" >"$tmpdir/diff.folded" <<'EOF'
import sys
side = [dict(l.rsplit(' ', 1) for l in open(f).read().split('\n') if l) for f in sys.argv[1:]]
for k in sorted(set(side[0]) | set(side[1])):
    print(k, side[0].get(k, 0), side[1].get(k, 0))
EOF
for how in "--event=after $tmpdir/diff.folded" "$tmpdir/diff.folded" \
	"--diff $tmpdir/base.txt $tmpdir/new.txt"; do
	case $how in
	--*) name="svg ${how%% *}" ;;
	*) name="svg of a differential file" ;;
	esac
	name="$name: flamegraph.pl's differential widths (after) and colours"
	# shellcheck disable=SC2086
	if "$TFLAME" export --to=svg $how -o "$tmpdir/d.svg" &&
		python3 "$tmpdir/boxes.py" "$tmpdir/d.svg" fills >"$tmpdir/d.boxes" &&
		python3 "$tmpdir/model.py" "$tmpdir/diff.folded" 0.1 >"$tmpdir/m.boxes" &&
		out=$(same_boxes "$tmpdir/d.boxes" "$tmpdir/m.boxes"); then
		ok "$name ($(grep -c 'rgb(255,' "$tmpdir/d.boxes") red or white)"
	else
		not_ok "$name" "$out" "$(cat "$tmpdir/d.boxes")"
	fi
	[ -n "${FLAMEGRAPH_PL:-}" ] || continue
	perl "$FLAMEGRAPH_PL" "$tmpdir/diff.folded" >"$tmpdir/f.svg" 2>/dev/null || exit 99
	python3 "$tmpdir/boxes.py" "$tmpdir/f.svg" fills >"$tmpdir/f.boxes" || exit 99
	if out=$(same_boxes "$tmpdir/d.boxes" "$tmpdir/f.boxes"); then
		ok "$name: those of $FLAMEGRAPH_PL"
	else
		not_ok "$name: those of $FLAMEGRAPH_PL" "$out"
	fi
done

# The icicle: the same boxes, root at the top.
"$TFLAME" export --to=svg --icicle "$folded" -o "$tmpdir/i.svg" &&
	python3 "$tmpdir/boxes.py" "$tmpdir/i.svg" icicle >"$tmpdir/i.boxes" &&
	"$TFLAME" export --to=svg "$folded" -o "$tmpdir/t.svg" &&
	python3 "$tmpdir/boxes.py" "$tmpdir/t.svg" >"$tmpdir/t.boxes"
if cmp -s "$tmpdir/i.boxes" "$tmpdir/t.boxes" &&
	[ "$(grep -c '<rect' "$tmpdir/i.svg")" -gt 3 ]; then
	ok "svg --icicle: the same boxes upside down"
else
	not_ok "svg --icicle: the same boxes upside down"
fi

# The SVG's script, run by node on a stand-in for the browser's DOM built
# from the SVG's boxes: hovering shows a box's title, a click zooms (the
# box and its callers across the width, its callees in proportion, the
# rest hidden), Reset Zoom puts everything back, and a search lights the
# matches and says their share. Skipped where node is missing.
if command -v node >/dev/null 2>&1; then
	cat >"$tmpdir/domjson.py" <<'EOF'
import json, re, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
text = open(sys.argv[1]).read()
root = ET.fromstring(text)
boxes = [{'title': g.find(NS + 'title').text, 'rect': dict(g.find(NS + 'rect').attrib)}
         for g in root.iter(NS + 'g')]
print(json.dumps({'width': float(root.get('width')), 'boxes': boxes,
                  'script': '\n'.join(re.findall(r'<!\[CDATA\[(.*?)\]\]>', text, re.S))}))
EOF
	"$TFLAME" export --to=svg "$folded" -o "$tmpdir/t.svg" || exit 99
	python3 "$tmpdir/domjson.py" "$tmpdir/t.svg" >"$tmpdir/dom.json" || exit 99
	cat >"$tmpdir/dom.js" <<'EOF'
const assert = require('assert');
const d = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
function node(tag, attrs, text) {
	return { tagName: tag, attrs: Object.assign({}, attrs), style: {}, textContent: text,
		 firstChild: { nodeValue: text }, kids: [],
		 getAttribute(k) { return this.attrs[k]; },
		 setAttribute(k, v) { this.attrs[k] = String(v); },
		 getElementsByTagName(t) { return this.kids.filter(k => k.tagName === t); } };
}
const gs = d.boxes.map(b => {
	const g = node('g', {}, '');
	g.kids = [node('title', {}, b.title), node('rect', b.rect, ''), node('text', {}, '')];
	return g;
});
const ids = { details: node('text', {}, ' '), matched: node('text', {}, ' '),
	      unzoom: node('text', {}, 'Reset Zoom'), search: node('text', {}, 'Search') };
global.document = { getElementById: id => ids[id],
		    getElementsByTagName: t => (t === 'g' ? gs : []),
		    documentElement: { width: { baseVal: { value: d.width } } } };
global.window = { addEventListener() {} };
let term = 'compute';
global.prompt = () => term;
(0, eval)(d.script + '\nglobal.init = init; global.unzoom = unzoom; global.search_prompt = search_prompt;');
init();
/* With search terms: each one's "Matched" line, and nothing else. */
if (process.argv.length > 3) {
	for (const t of process.argv.slice(3)) {
		term = t;
		search_prompt();
		console.log(t + '\t' + ids.matched.firstChild.nodeValue);
		search_prompt();
	}
	process.exit(0);
}
const box = name => gs.find(g => g.kids[0].textContent.startsWith(name + ' ('));
const width = name => parseFloat(box(name).kids[1].attrs.width);
/* The SVG holds tenths of a pixel: a zoom scales their rounding. */
const near = (a, b) => assert.ok(Math.abs(a - b) < 0.5, a + ' is not ' + b);
box('run').onmouseover();
assert.strictEqual(ids.details.firstChild.nodeValue, box('run').kids[0].textContent);
box('run').onclick();
assert.strictEqual(width('run'), d.width - 20);
assert.strictEqual(width('main'), d.width - 20);
assert.strictEqual(box('main').style.opacity, '0.5');
assert.strictEqual(box('swapper').style.display, 'none');
near(width('compute'), (d.width - 20) * 4 / 12);
assert.strictEqual(box('compute').kids[2].textContent, 'compute');
assert.strictEqual(ids.unzoom.style.opacity, '1.0');
unzoom();
near(width('run'), (d.width - 20) * 12 / 23);
assert.strictEqual(box('swapper').style.display, 'block');
search_prompt();
assert.strictEqual(box('compute').kids[1].attrs.fill, 'rgb(230,0,230)');
assert.notStrictEqual(box('run').kids[1].attrs.fill, 'rgb(230,0,230)');
assert.strictEqual(ids.matched.firstChild.nodeValue, 'Matched: 26.1%');
search_prompt();
assert.notStrictEqual(box('compute').kids[1].attrs.fill, 'rgb(230,0,230)');
EOF
	if out=$(node "$tmpdir/dom.js" "$tmpdir/dom.json" 2>&1); then
		ok "svg script: hover, zoom, reset, search"
	else
		not_ok "svg script: hover, zoom, reset, search" "$(echo "$out" | head -8)"
	fi
	# The search's "Matched" share is flamegraph.pl's: our script on our
	# SVG of a recorded profile against flamegraph.pl's count (the widest
	# match at each x, then the matches that start past the last one
	# counted, of the widest box) done on flamegraph.pl's own SVG.
	if [ -n "${FLAMEGRAPH_PL:-}" ]; then
		for input in "$tmpdir/threads.folded" "$tmpdir/perf.folded"; do
			name="svg search of $(basename "$input"): flamegraph.pl's Matched share"
			"$TFLAME" export --to=svg "$input" -o "$tmpdir/t.svg" || exit 99
			perl "$FLAMEGRAPH_PL" "$input" >"$tmpdir/f.svg" 2>/dev/null || exit 99
			python3 "$tmpdir/domjson.py" "$tmpdir/t.svg" >"$tmpdir/dom.json" || exit 99
			set -- leaf msort '^_' 'cmp|hash' worker python gzip '^\[' z
			node "$tmpdir/dom.js" "$tmpdir/dom.json" "$@" >"$tmpdir/ours" 2>&1
			python3 - "$tmpdir/f.svg" "$@" >"$tmpdir/theirs" <<'EOF'
import re, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
frames = [(g.find(NS + 'title').text, g.find(NS + 'rect'))
          for g in ET.parse(sys.argv[1]).getroot().iter(NS + 'g')
          if g.find(NS + 'title') is not None and g.find(NS + 'rect') is not None]
for term in sys.argv[2:]:
    matches, maxwidth = {}, 0
    for title, rect in frames:
        w = float(rect.get('width'))
        maxwidth = max(maxwidth, w)
        if re.search(term, title):
            x = float(rect.get('x'))
            matches[x] = max(w, matches.get(x, 0))
    count, lastx, lastw = 0, -1, 0
    for x in sorted(matches):
        if x >= lastx + lastw - 0.0001:
            count += matches[x]
            lastx, lastw = x, matches[x]
    pct = 100 * count / maxwidth
    print('%s\tMatched: %s%%' % (term, '100' if pct == 100 else '%.1f' % pct))
EOF
			if diff -u "$tmpdir/theirs" "$tmpdir/ours" >"$tmpdir/diff"; then
				ok "$name ($(sed 's/	Matched: / /' "$tmpdir/ours" | tr '\n' ' '))"
			else
				not_ok "$name" "$(cat "$tmpdir/diff")"
			fi
		done
	fi
else
	echo "# no node: the SVG's script is not run"
fi

# A hostile name stays well-formed XML.
printf 'main;a<b>&"c\001\033[31m;\377x 3\nmain 1\n' >"$tmpdir/hostile.txt"
if "$TFLAME" export --to=svg "$tmpdir/hostile.txt" -o "$tmpdir/h.svg" &&
	python3 "$tmpdir/boxes.py" "$tmpdir/h.svg" >/dev/null 2>&1; then
	ok "svg of markup, control characters and invalid UTF-8: well-formed"
else
	not_ok "svg of markup, control characters and invalid UTF-8: well-formed"
fi

# --- speedscope: the schema's shape, time order ---------------------------
"$TFLAME" export --to=speedscope "$perf" -o "$tmpdir/s.json" || exit 99
if out=$(python3 - "$tmpdir/s.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['$schema'] == 'https://www.speedscope.app/file-format-schema.json'
frames = d['shared']['frames']
assert all(isinstance(f['name'], str) for f in frames)
assert len(d['profiles']) == 10, len(d['profiles'])
n = 0
for p in d['profiles']:
    assert p['type'] == 'sampled' and p['unit'] == 'nanoseconds'
    assert len(p['samples']) == len(p['weights'])
    assert p['endValue'] - p['startValue'] == sum(p['weights'])
    assert all(0 <= i < len(frames) for s in p['samples'] for i in s)
    n += len(p['samples'])
assert n == 70, n
assert sum(sum(p['weights']) for p in d['profiles']) == 707070700
EOF
); then
	ok "speedscope: ten threads, 70 samples, every weight, frames in range"
else
	not_ok "speedscope: the schema's shape" "$out"
fi

# Against speedscope's own schema (file-format-schema.json, shipped in the
# speedscope npm package's dist/release) when SPEEDSCOPE_SCHEMA names it
# and python3 has jsonschema.
if [ -n "${SPEEDSCOPE_SCHEMA:-}" ] && python3 -c 'import jsonschema' 2>/dev/null; then
	for f in "$perf" tests/data/folded/decimal.txt tests/data/cprofile/fib.prof; do
		"$TFLAME" export --to=speedscope "$f" -o "$tmpdir/v.json" 2>/dev/null || exit 99
		if out=$(python3 - "$SPEEDSCOPE_SCHEMA" "$tmpdir/v.json" 2>&1 <<'EOF'
import json, jsonschema, sys
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
EOF
		); then
			ok "speedscope of $f: valid against $SPEEDSCOPE_SCHEMA"
		else
			not_ok "speedscope of $f: valid against $SPEEDSCOPE_SCHEMA" "$(echo "$out" | tail -3)"
		fi
	done
else
	echo "# SPEEDSCOPE_SCHEMA not set (or no jsonschema): not checked against the schema"
fi

# Time order: the samples of a thread come as perf printed them (in time).
"$TFLAME" export --to=speedscope --thread=4583 "$perf" -o "$tmpdir/g.json" || exit 99
"$TFLAME" export --to=folded --thread=4583 "$perf" >"$tmpdir/g.folded" || exit 99
if python3 - "$tmpdir/g.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d['profiles']) == 1, len(d['profiles'])
assert d['profiles'][0]['name'] == 'gzip pid: 4583 tid: 4583', d['profiles'][0]['name']
assert len(d['profiles'][0]['samples']) == 37
EOF
then
	ok "speedscope --thread: one profile named as speedscope names perf's, its 37 samples"
else
	not_ok "speedscope --thread: one profile, its 37 samples"
fi

# --- round trips -----------------------------------------------------------
# speedscope JSON read back: the same report: weight, samples, the
# threads (their comm, pid and tid come back from the profiles' names),
# and the top functions by self and by total with their figures and
# modules. The profile per thread is read back as one profile of them all.
cat >"$tmpdir/report.py" <<'EOF'
import json, sys
d = json.load(sys.stdin)
print(d['weight'], d['samples'])
for t in sorted(d['threads'], key=lambda t: (t['tid'] or 0, t['comm'])):
    print('thread', t['comm'], t['pid'], t['tid'], t['samples'], t['weight'])
for key in ('top_self', 'top_total'):
    for f in sorted(d[key], key=lambda f: (-f[key[4:]], f['function'], f['module'])):
        print(key, f['function'], f['module'], f['self'], f['total'])
EOF
for lens in "--thread=4580" "--thread=4583" "--pid=4581" "" "--event=sched_switch"; do
	case $lens in
	--event=*) input=tests/data/recorded/multi-event.txt ;;
	"") input=tests/data/recorded/threads.txt.gz ;;
	*) input=$perf ;;
	esac
	name="round trip speedscope $(basename "$input") ${lens:-(every thread)}"
	# shellcheck disable=SC2086
	"$TFLAME" export --to=speedscope $lens "$input" -o "$tmpdir/r.json" || exit 99
	# shellcheck disable=SC2086
	"$TFLAME" report --json --limit=0 $lens "$input" | python3 "$tmpdir/report.py" \
		>"$tmpdir/a.report"
	"$TFLAME" report --json --limit=0 "$tmpdir/r.json" | python3 "$tmpdir/report.py" \
		>"$tmpdir/b.report"
	threads=$(grep -c '^thread ' "$tmpdir/a.report")
	if [ -s "$tmpdir/a.report" ] && diff -u "$tmpdir/a.report" "$tmpdir/b.report" >"$tmpdir/diff"; then
		ok "$name: the same report ($threads threads, $(wc -l <"$tmpdir/a.report") lines)"
	else
		not_ok "$name: the same report" "$(head -20 "$tmpdir/diff")"
	fi
done

# collapse of folded stacks gives them back: a file collapse wrote, read
# again, is the same file, byte for byte. Empty and blank frames are
# frames (as flamegraph.pl draws them), wherever they are in the stack.
# (The files are as collapse writes: lines in byte order, one space.)
printf '%s\n' ';x 1' '; 5' ';;; 9' 'a 5' 'a; ;c 2' 'a;;b 3' 'a;b 6' 'a;b; 4' 'a;b;; 7' \
	'a;b;c  d 1.25' ' lead;trail 2' | LC_ALL=C sort >"$tmpdir/edge.folded"
printf '%s\n' ';x 0 1' 'a;;b 3 0' 'a;b 2 5' 'a;b; 1 1' | LC_ALL=C sort >"$tmpdir/edge-diff.folded"
printf 'main;caf\303\251;\346\227\245\346\234\254 3\nmain;12;34 5\nmain;(anon);x_[k] 2\n' |
	LC_ALL=C sort >"$tmpdir/edge-names.folded"
"$TFLAME" collapse tests/data/recorded/threads.txt.gz >"$tmpdir/edge-perf.folded" || exit 99
for f in edge.folded edge-diff.folded edge-names.folded edge-perf.folded; do
	name="round trip collapse $f"
	if "$TFLAME" collapse "$tmpdir/$f" >"$tmpdir/c1" 2>"$tmpdir/err" &&
		"$TFLAME" collapse - <"$tmpdir/c1" >"$tmpdir/c2" 2>>"$tmpdir/err" &&
		cmp -s "$tmpdir/c1" "$tmpdir/c2" && cmp -s "$tmpdir/$f" "$tmpdir/c1" && [ ! -s "$tmpdir/err" ]
	then
		ok "$name: the file back ($(wc -l <"$tmpdir/c1") lines)"
	else
		not_ok "$name: the file back" "$(diff "$tmpdir/$f" "$tmpdir/c1" | head -10)" \
			"$(diff "$tmpdir/c1" "$tmpdir/c2" | head -10)" "$(cat "$tmpdir/err")"
	fi
done

# Folded stacks of a lens read back: the same Left Heavy.
for lens in "" "--pid=4580" "--zoom=python3;[unknown]"; do
	name="round trip folded ${lens:-(no lens)}"
	# shellcheck disable=SC2086
	"$TFLAME" export --to=folded $lens "$perf" >"$tmpdir/r.folded" || exit 99
	case $lens in
	--zoom=*) zoom=${lens#--zoom=}; set -- --zoom="$zoom" ;;
	"") set -- ;;
	*) set -- "$lens" ;;
	esac
	"$TFLAME" dump --width=120 --height=40 "$@" "$perf" | tail -n +2 >"$tmpdir/a.dump"
	"$TFLAME" dump --width=120 --height=40 ${zoom:+--zoom="$zoom"} "$tmpdir/r.folded" |
		tail -n +2 >"$tmpdir/b.dump"
	zoom=
	if diff -u "$tmpdir/a.dump" "$tmpdir/b.dump" >"$tmpdir/diff"; then
		ok "$name: the same Left Heavy"
	else
		not_ok "$name: the same Left Heavy" "$(head -20 "$tmpdir/diff")"
	fi
done

finish
