#!/bin/sh
# A perf.data cut short: a copy interrupted (head -c N) or a perf record
# killed (data size 0 in the header, no feature sections). tflame loads the
# samples of the whole records before the cut and warns naming the byte.
#
# An independent walker (python3, below) finds the last whole record of
# each cut and writes the prefix perf can read; perf's own sample count on
# that prefix must be tflame's, and the counts must grow with the cut.
# Hostile headers give one clear error line, never a crash or a hang.

. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 99

if ! perf --version >/dev/null 2>&1; then
	echo "perf is not installed: perf.data tests skipped"
	exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }
tiny=tests/data/perfdata/tiny.data
d=$tmpdir

# walk.py FILE [PREFIX]: "END RECORDS SAMPLES" for the whole records of
# FILE's data section as far as the file goes; writes PREFIX, FILE's
# first END bytes with the header's data size set to END - data offset
# and the feature bitmap cleared.
cat >"$d/walk.py" <<'EOF'
import struct, sys
f = open(sys.argv[1], 'rb').read()
off, size = struct.unpack_from('<QQ', f, 40)
end = min(off + size, len(f)) if size else len(f)
p = off
records = samples = 0
while p + 8 <= end:
	kind, misc, rsize = struct.unpack_from('<IHH', f, p)
	if rsize < 8 or p + rsize > end:
		break
	records += 1
	samples += kind == 9  # PERF_RECORD_SAMPLE
	p += rsize
print(p, records, samples)
if len(sys.argv) > 2:
	out = bytearray(f[:p])
	struct.pack_into('<Q', out, 48, p - off)
	out[72:104] = bytes(32)
	open(sys.argv[2], 'wb').write(out)
EOF

# samples FILE: tflame's sample count (report's "samples" line).
samples() {
	"$TFLAME" report --no-symbols "$1" 2>"$d/err" | sed -n 's/^samples *//p'
}

# Cuts across the data section (bytes 264 to 4672 of tiny.data) and into
# the feature sections after it.
size=$(wc -c <$tiny)
prev=0
bad=
checked=0
for cut in 1200 1500 1800 2100 2400 2700 3000 3001 3300 3600 3900 4200 4500 4600 4671 4672 6000; do
	head -c $cut $tiny >"$d/cut.data"
	set -- $(python3 "$d/walk.py" "$d/cut.data" "$d/prefix.data")
	end=$1 records=$2 want=$3
	got=$(samples "$d/cut.data")
	perf_n=$(perf script -F pid -i "$d/prefix.data" 2>/dev/null | wc -l)
	if [ "$got" != "$want" ] || [ "$got" != "$perf_n" ]; then
		bad="$bad cut $cut: tflame $got, walker $want, perf on the prefix $perf_n;"
	fi
	if [ -n "$got" ] && [ "$got" -lt "$prev" ]; then
		bad="$bad cut $cut: $got samples, fewer than a shorter cut's $prev;"
	fi
	prev=${got:-0}
	if [ $cut -lt 4672 ]; then
		warning="tflame: $d/cut.data: warning: cut at byte $cut, inside the records (the header says they end at byte 4672): loaded the samples of the $records whole records before byte $end"
		grep -qxF "$warning" "$d/err" || bad="$bad cut $cut: warning: $(head -1 "$d/err");"
	elif grep -q 'cut at' "$d/err"; then
		bad="$bad cut $cut: a warning for a file whose records are whole;"
	fi
	checked=$((checked + 1))
done
if [ -z "$bad" ] && [ "$prev" -eq "$(samples $tiny)" ]; then
	ok "$checked cuts: samples grow with the cut and equal perf's on the prefix"
else
	not_ok "cuts of a recording" "$bad"
fi

# The same cut through standard input and gzip (a copy tflame repairs).
head -c 3000 $tiny >"$d/cut.data"
want=$(samples "$d/cut.data")
got_stdin=$("$TFLAME" report --no-symbols - <"$d/cut.data" 2>"$d/err" | sed -n 's/^samples *//p')
grep -q 'tflame: -: warning: cut at byte 3000' "$d/err" || got_stdin="$got_stdin, no warning"
gzip -c "$d/cut.data" >"$d/cut.data.gz"
got_gz=$(samples "$d/cut.data.gz")
grep -q 'cut.data.gz: warning: cut at byte 3000' "$d/err" || got_gz="$got_gz, no warning"
if [ -n "$want" ] && [ "$got_stdin" = "$want" ] && [ "$got_gz" = "$want" ]; then
	ok "a cut file through stdin and gzip"
else
	not_ok "a cut file through stdin and gzip" "file $want, stdin $got_stdin, gzip $got_gz"
fi
TMPDIR=$d/t
mkdir "$TMPDIR"
export TMPDIR
"$TFLAME" report "$d/cut.data" >/dev/null 2>&1
"$TFLAME" report - <"$d/cut.data" >/dev/null 2>&1
if [ -z "$(ls "$TMPDIR")" ]; then ok "repaired copies removed"; else not_ok "repaired copies removed" "$(ls "$TMPDIR")"; fi
unset TMPDIR

# What a killed perf record leaves: the first header (data size 0, the
# feature bits set) and the records, without the feature sections.
killed() {
	head -c "$1" $tiny >"$2"
	printf '\0\0\0\0\0\0\0\0' | dd of="$2" bs=1 seek=48 conv=notrunc 2>/dev/null
}
killed 4672 "$d/killed.data"
got=$(samples "$d/killed.data")
if [ "$got" = 47 ] &&
   grep -qxF "tflame: $d/killed.data: warning: the header's data size is 0, as perf record leaves it when killed: loaded the samples of the 60 whole records before byte 4672" "$d/err"; then
	ok "a killed recording"
else
	not_ok "a killed recording" "$got samples" "$(head -2 "$d/err")"
fi
killed 4000 "$d/killed.data"
set -- $(python3 "$d/walk.py" "$d/killed.data")
got=$(samples "$d/killed.data")
if [ "$got" = "$3" ] && grep -q "before byte $1, where the file is cut inside a record" "$d/err"; then
	ok "a killed recording cut inside a record"
else
	not_ok "a killed recording cut inside a record" "$got samples, want $3" "$(head -2 "$d/err")"
fi

# A live perf record killed with SIGKILL, where perf can record here.
loop='i=0; while [ $i -lt 30000000 ]; do i=$((i+1)); done'
if perf record -q -o "$d/probe.data" -- true >/dev/null 2>&1; then
	perf record -q -g -o "$d/live.data" -- sh -c "$loop" >/dev/null 2>&1 &
	pid=$!
	# Until perf has written some samples (a loaded machine starts slowly).
	i=0
	while [ $i -lt 100 ] && [ "$(wc -c <"$d/live.data" 2>/dev/null || echo 0)" -lt 65536 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	workload=$(pgrep -P $pid)
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	# The workload outlives perf: end it too.
	[ -n "$workload" ] && kill $workload 2>/dev/null
	set -- $(python3 "$d/walk.py" "$d/live.data" "$d/live.prefix")
	got=$(samples "$d/live.data")
	perf_n=$(perf script -F pid -i "$d/live.prefix" 2>/dev/null | wc -l)
	if [ "$(od -An -tu8 -j48 -N8 "$d/live.data" | tr -d ' ')" != 0 ]; then
		echo "# perf record finished before the kill: live test skipped"
	elif [ "$3" = 0 ]; then
		echo "# perf wrote no sample before the kill: live test skipped"
	elif [ -n "$got" ] && [ "$got" = "$3" ] && [ "$got" = "$perf_n" ] &&
	     grep -q "data size is 0" "$d/err"; then
		ok "a perf record killed with SIGKILL ($got samples)"
	else
		not_ok "a perf record killed with SIGKILL" "tflame $got, walker $3, perf $perf_n" \
			"$(head -2 "$d/err")"
	fi
else
	echo "# perf cannot record here: live kill skipped"
fi

# Hostile headers and records: one clear error line, quickly.
# hostile NAME PATTERN FILE: exit 1 and one stderr line matching PATTERN.
hostile() {
	timeout -k 5 20 "$TFLAME" report --no-symbols "$3" >/dev/null 2>"$d/err" </dev/null
	status=$?
	if [ $status -ne 1 ] || [ "$(wc -l <"$d/err")" -ne 1 ] ||
	   ! grep -q -- "$2" "$d/err"; then
		not_ok "$1" "exit $status" "$(head -3 "$d/err")"
	else
		ok "$1"
	fi
}
# put FILE OFFSET U64: write a little-endian u64 into FILE.
put() {
	python3 -c 'import struct,sys; f=open(sys.argv[1],"r+b"); f.seek(int(sys.argv[2])); f.write(struct.pack("<Q", int(sys.argv[3]))); f.close()' "$@"
}
head -c 100 $tiny >"$d/h.data"
hostile "cut inside the header" "h.data: cut at byte 100, inside the 104-byte perf.data header" "$d/h.data"
head -c 200 $tiny >"$d/h.data"
hostile "cut before the records" "h.data: cut at byte 200, before the records, which start at byte 264" "$d/h.data"
head -c 300 $tiny >"$d/h.data"
hostile "cut inside the first record" "h.data: cut at byte 300, inside the first record (at byte 264)" "$d/h.data"
head -c 1000 $tiny >"$d/h.data"
hostile "no sample before the cut" "h.data: cut at byte 1000, read the 11 whole records before byte 968: no samples" "$d/h.data"
killed 264 "$d/h.data"
hostile "killed before any record" "h.data: no samples: the header's data size is 0 and no records follow it" "$d/h.data"
killed 300 "$d/h.data"
hostile "killed inside the first record" "h.data: no samples: the header's data size is 0 and the first record (at byte 264) is not whole" "$d/h.data"
cp $tiny "$d/h.data"
put "$d/h.data" 40 18446744073709551000
hostile "data offset past the end" "h.data: cut at byte $size, before the records, which start at byte 18446744073709551000" "$d/h.data"
cp $tiny "$d/h.data"
put "$d/h.data" 40 16
hostile "data offset inside the header" "h.data: corrupt perf.data header: the data starts at byte 16" "$d/h.data"
cp $tiny "$d/h.data"
put "$d/h.data" 48 18446744073709551615
if timeout -k 5 20 "$TFLAME" report --no-symbols "$d/h.data" >/dev/null 2>"$d/err" &&
   grep -q 'cut at byte 9352, inside the records (the header.s data size, 18446744073709551615, runs past any file)' "$d/err"; then
	ok "a data size that overflows reads as a cut"
else
	not_ok "a data size that overflows reads as a cut" "$(head -2 "$d/err")"
fi
# A record of size 0 after the cut point's records: the walk stops there.
head -c 3000 $tiny >"$d/h.data"
printf '\0\0\0\0\0\0\0\0\0\0\0\0' >>"$d/h.data"
got=$(timeout -k 5 20 "$TFLAME" report --no-symbols "$d/h.data" 2>"$d/err" | sed -n 's/^samples *//p')
if [ "$got" = 27 ] && grep -q 'records before byte 3000$' "$d/err"; then
	ok "a zero-size record ends the walk"
else
	not_ok "a zero-size record ends the walk" "$got samples" "$(head -2 "$d/err")"
fi
finish
