#!/bin/sh
# Every number agrees with the tool that wrote the file: tflame's function
# table (report --json --limit=0) against the writing tool's own reader,
# run here at test time, on files recorded by the real tools.
#
#  - cProfile (tests/data/cprofile): pstats' tottime and cumtime of every
#    function, to the nanosecond, and its total time as the profile's
#    weight; a search for one function matches its cumtime.
#  - callgrind (tests/data/callgrind): callgrind_annotate's self cost of
#    every function, its inclusive cost (--inclusive=yes) where recursion
#    does not make it count a call twice, and the summary as the weight.
#
# Each comparison is skipped when its tool is missing (python3, or
# callgrind_annotate from valgrind); exit 77 when both are.

. "$top_srcdir/tests/lib.sh"

data=$top_srcdir/tests/data
have_python=false
have_annotate=false
command -v python3 >/dev/null 2>&1 && have_python=true
command -v callgrind_annotate >/dev/null 2>&1 && have_annotate=true
if ! $have_python; then
	echo "skipped: no python3 to read pstats or tflame's JSON"
	exit 77
fi

# tflame's figures as "self total name" lines, all functions with weight;
# with a second argument, the name is followed by " [module]".
tflame_table() {
	"$TFLAME" report --json --limit=0 "$1" >"$tmpdir/report.json" || return 1
	python3 - "$tmpdir/report.json" "$2" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
rows = {}
for row in r["top_self"] + r["top_total"]:
    name = row["function"]
    if sys.argv[2]:
        name += " [%s]" % row["module"]
    rows[name] = (row["self"], row["total"])
print("weight", r["weight"])
for name, (self, total) in sorted(rows.items()):
    print(self, total, name)
EOF
}

# ---------------------------------------------------------------- cProfile

# pstats' tottime and cumtime of every function, named as tflame names it
# with its module: pstats' own name for a built-in (no module), else
# "function (file:line)", the file shortened below site-packages or
# lib/pythonX.Y or to its last two parts, and that short file the module.
pstats_table() {
	python3 - "$1" <<'EOF'
import pstats, re, sys
s = pstats.Stats(sys.argv[1])
ns = lambda t: int(t * 1e9 + 0.5)


def short(path):
    parts = re.split(r"[/\\]", path)
    cut = None
    for i, part in enumerate(parts[:-1]):
        if part in ("site-packages", "dist-packages") or (
                re.fullmatch(r"python\d+(\.\d+)?", part) and i and
                parts[i - 1] in ("lib", "lib64")):
            cut = i + 1
    if cut is not None and parts[-1]:
        return "/".join(parts[cut:])
    return "/".join(parts[-2:])


def name(func):
    file, line, fn = func
    if file == "~" and line == 0:
        return pstats.func_std_string(func) + " []"
    return "%s (%s:%d) [%s]" % (fn, short(file), line, short(file))


print("weight", ns(s.total_tt))
rows = {}
for func, (cc, nc, tt, ct, callers) in s.stats.items():
    if ns(tt) or ns(ct):
        rows[name(func)] = (ns(tt), max(ns(ct), ns(tt)))
for n, (self, total) in sorted(rows.items()):
    print(self, total, n)
EOF
}

for f in fib imports v1 v2 jsonwork; do
	prof=$data/cprofile/$f.prof
	if ! pstats_table "$prof" >"$tmpdir/want" 2>"$tmpdir/err"; then
		not_ok "cprofile/$f: pstats cannot read it" "$(cat "$tmpdir/err")"
		continue
	fi
	if ! tflame_table "$prof" module >"$tmpdir/got"; then
		not_ok "cprofile/$f: tflame report failed"
		continue
	fi
	if cmp -s "$tmpdir/want" "$tmpdir/got"; then
		ok "cprofile/$f: tottime, cumtime and total time as pstats ($(wc -l <"$tmpdir/want") lines)"
	else
		not_ok "cprofile/$f: tflame differs from pstats" \
			"$(diff "$tmpdir/want" "$tmpdir/got" | head -20)"
	fi
done

# The mutual recursion and the import that once lost everything but a frame.
prof=$data/cprofile/imports.prof
for fn in is_even is_odd a b hues; do
	want=$(python3 - "$prof" "$fn" <<'EOF'
import pstats, sys
s = pstats.Stats(sys.argv[1])
for (file, line, name), (cc, nc, tt, ct, callers) in s.stats.items():
    if name == sys.argv[2] and file == "imports.py":
        print(int(ct * 1e9 + 0.5))
EOF
)
	got=$("$TFLAME" report --json --search="^$fn \(imports\.py:[0-9]+\)\$" "$prof" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["search"]["matched"])')
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		ok "cprofile/imports: a search for $fn matches its cumtime, $want ns"
	else
		not_ok "cprofile/imports: a search for $fn matched $got ns, cumtime $want"
	fi
done
# The tree weighs the total time, and exec (the script) is its root.
roots=$("$TFLAME" collapse "$prof" | sed 's/;.*//; s/ [0-9]*$//' | sort -u)
want_roots="{built-in method builtins.exec}
{method 'disable' of '_lsprof.Profiler' objects}"
if [ "$roots" = "$want_roots" ]; then
	ok "cprofile/imports: the tree's roots are exec and the profiler's disable"
else
	not_ok "cprofile/imports: roots" "$roots"
fi

# --------------------------------------------------------------- callgrind

# callgrind_annotate's table as "cost name [object]" lines (the file left
# out, as tflame's functions are a name in a module), and its PROGRAM
# TOTALS.
annotate_table() {
	callgrind_annotate --threshold=100 "$@" | awk '
		/PROGRAM TOTALS/ { gsub(",", "", $1); print "weight", $1; next }
		/^ *[0-9,]+ \( *[0-9.]+%\)  / {
			cost = $1; gsub(",", "", cost)
			name = $0; sub(/^ *[0-9,]+ \( *[0-9.]+%\)  /, "", name)
			obj = ""
			if (match(name, / \[[^]]*\]$/)) {
				obj = substr(name, RSTART)
				name = substr(name, 1, RSTART - 1)
			}
			sub(/^[^:]*:/, "", name)
			print cost, name obj
		}'
}

if $have_annotate; then
	for f in prog rec; do
		cg=$data/callgrind/$f.callgrind
		if ! tflame_table "$cg" modules >"$tmpdir/got"; then
			not_ok "callgrind/$f: tflame report failed"
			continue
		fi
		annotate_table "$cg" >"$tmpdir/self"
		annotate_table --inclusive=yes "$cg" >"$tmpdir/incl"
		# Functions of one name in several files add up, as in tflame.
		python3 - "$tmpdir/got" "$tmpdir/self" "$tmpdir/incl" >"$tmpdir/cmp" <<'EOF'
import sys
def table(path):
    rows, weight = {}, None
    for line in open(path):
        a, b = line.rstrip("\n").split(" ", 1)
        if a == "weight":
            weight = int(b)
        else:
            rows[b] = rows.get(b, 0) + int(a)
    return weight, rows
got = {}
for line in open(sys.argv[1]):
    parts = line.rstrip("\n").split(" ", 2)
    if parts[0] == "weight":
        weight = int(parts[1])
    else:
        got[parts[2]] = (int(parts[0]), int(parts[1]))
total, selfs = table(sys.argv[2])
_, incl = table(sys.argv[3])
bad = []
if weight != total:
    bad.append("weight %d, PROGRAM TOTALS %d" % (weight, total))
for name, cost in selfs.items():
    if got.get(name, (0, 0))[0] != cost:
        bad.append("%s: self %s, callgrind_annotate %d" % (name, got.get(name), cost))
checked = 0
for name, cost in incl.items():
    g = got.get(name, (0, 0))[1]
    # A recursion level of its own (fib'2): callgrind_annotate adds the
    # calls made from inside the recursion too; tflame counts them once.
    if "'" in name:
        if not (g <= cost and g <= total):
            bad.append("%s: total %d above callgrind_annotate's %d" % (name, g, cost))
    elif g != cost:
        bad.append("%s: total %d, callgrind_annotate %d" % (name, g, cost))
    checked += 1
print("%d self, %d inclusive" % (len(selfs), checked))
for b in bad:
    print("BAD", b)
EOF
		if grep -q '^BAD' "$tmpdir/cmp"; then
			not_ok "callgrind/$f: tflame differs from callgrind_annotate" \
				"$(grep '^BAD' "$tmpdir/cmp" | head -20)"
		else
			ok "callgrind/$f: self and inclusive as callgrind_annotate ($(cat "$tmpdir/cmp"))"
		fi
	done
	# The recursion levels, exactly: fib'2 is called from fib only (its calls to
	# itself are inside), is_even'2 from is_odd (outside its cycle).
	cg=$data/callgrind/rec.callgrind
	tflame_table "$cg" modules >"$tmpdir/got"
	for pair in "fib'2:fib" "is_even'2:is_odd"; do
		fn=${pair%%:*}
		caller=${pair#*:}
		# The cost lines after calls= lines from caller to fn (one position column).
		want=$(awk -v fn="$fn" -v caller="$caller" '
			function name(v,   id, rest) {
				if (v !~ /^\([0-9]+\)/)
					return v
				id = v; sub(/\).*/, ")", id)
				rest = v; sub(/^\([0-9]+\) */, "", rest)
				if (rest != "")
					names[id] = rest
				return names[id]
			}
			/^fn=/ { v = $0; sub(/^fn=/, "", v); cur = name(v) }
			/^cfn=/ { v = $0; sub(/^cfn=/, "", v); callee = name(v) }
			/^calls=/ { call = 1; next }
			call { if (cur == caller && callee == fn) sum += $2; call = 0 }
			END { print sum + 0 }' "$cg")
		got=$(awk -v fn="$fn" '$3 == fn && $4 == "[/build/rec]" { print $2 }' "$tmpdir/got")
		if [ "$want" -gt 0 ] && [ "$want" = "$got" ]; then
			ok "callgrind/rec: $fn's total is the cost of $caller's calls to it, $want"
		else
			not_ok "callgrind/rec: $fn's total $got, $caller's calls to it cost $want"
		fi
	done
else
	echo "# no callgrind_annotate (valgrind): the callgrind comparisons are skipped"
fi

finish
