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
# box, sorted: depth counted from the root, the width in pixels. Both
# tflame's and flamegraph.pl's SVG hold each box as a <g> with a <title>
# ("name (figures)") and a <rect>.
cat >"$tmpdir/boxes.py" <<'EOF'
import re, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
icicle = len(sys.argv) > 2 and sys.argv[2] == 'icicle'
fills = len(sys.argv) > 2 and sys.argv[2] == 'fills'
boxes = []
for g in root.iter(NS + 'g'):
    title, rect = g.find(NS + 'title'), g.find(NS + 'rect')
    if title is None or rect is None:
        continue
    name = re.sub(r' \([^(]*\)$', '', title.text or '')
    if fills and name != 'all':
        name += '\t' + rect.get('fill') + '\t' + title.text.rsplit('; ', 1)[-1]
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
import sys
lines = [l.rstrip('\n') for l in open(sys.argv[1]) if l.strip()]
minwidth = float(sys.argv[2])
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
    node, path = tree, [f for f in stack.split(';') if f != '']
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
        if diff:
            pct = '%.2f' % (100 * d / total)
            name += '\t%s\t%s%s%%)' % (fill(d), '+' if d > 0 else '', pct)
        out.append('%d\t%.1f\t%s' % (depth, w * per, name))
        todo.append((kids, depth + 1))
for l in sorted(out, key=lambda l: (int(l.split('\t')[0]), l.split('\t', 2)[2], l)):
    print(l)
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
"$TFLAME" collapse "$perf" >"$tmpdir/perf.folded" || exit 99
for input in "$folded" "$tmpdir/perf.folded"; do
	for mw in 0.1 60; do
		name="svg of $(basename "$input") --minwidth=$mw"
		if ! "$TFLAME" export --to=svg --minwidth=$mw "$input" -o "$tmpdir/t.svg" \
			2>"$tmpdir/err"; then
			not_ok "$name" "$(cat "$tmpdir/err")"
			continue
		fi
		if ! python3 "$tmpdir/boxes.py" "$tmpdir/t.svg" >"$tmpdir/t.boxes" 2>"$tmpdir/err"; then
			not_ok "$name: not well-formed XML" "$(head -3 "$tmpdir/err")"
			continue
		fi
		python3 "$tmpdir/model.py" "$input" $mw >"$tmpdir/m.boxes" || exit 99
		if out=$(same_boxes "$tmpdir/t.boxes" "$tmpdir/m.boxes"); then
			ok "$name: flamegraph.pl's boxes ($(wc -l <"$tmpdir/t.boxes") of them)"
		else
			not_ok "$name: boxes differ from flamegraph.pl's algorithm" "$out"
		fi
		[ -n "${FLAMEGRAPH_PL:-}" ] || continue
		perl "$FLAMEGRAPH_PL" --minwidth $mw "$input" >"$tmpdir/f.svg" 2>/dev/null || exit 99
		python3 "$tmpdir/boxes.py" "$tmpdir/f.svg" >"$tmpdir/f.boxes" || exit 99
		if out=$(same_boxes "$tmpdir/t.boxes" "$tmpdir/f.boxes"); then
			ok "$name: the boxes of $FLAMEGRAPH_PL"
		else
			not_ok "$name: boxes differ from $FLAMEGRAPH_PL" "$out"
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
for how in "--event=after $tmpdir/diff.folded" "--diff $tmpdir/base.txt $tmpdir/new.txt"; do
	name="svg ${how%% *}: flamegraph.pl's differential colours"
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
	"$TFLAME" export --to=svg "$folded" -o "$tmpdir/t.svg" || exit 99
	python3 - "$tmpdir/t.svg" >"$tmpdir/dom.json" <<'EOF'
import json, re, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
text = open(sys.argv[1]).read()
root = ET.fromstring(text)
boxes = [{'title': g.find(NS + 'title').text, 'rect': dict(g.find(NS + 'rect').attrib)}
         for g in root.iter(NS + 'g')]
print(json.dumps({'width': float(root.get('width')), 'boxes': boxes,
                  'script': '\n'.join(re.findall(r'<!\[CDATA\[(.*?)\]\]>', text, re.S))}))
EOF
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
global.prompt = () => 'compute';
(0, eval)(d.script + '\nglobal.init = init; global.unzoom = unzoom; global.search_prompt = search_prompt;');
init();
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
near(width('compute'), (d.width - 20) * 6 / 12);
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
	"") input=tests/data/recorded/threads.txt ;;
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
