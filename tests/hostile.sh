#!/bin/sh
# Hostile input: every file here is generated, none is committed. Each is
# fed to tflame under a memory limit (ulimit -v, skipped when the binary
# cannot run under one, as with ASan) and a time limit, and must give:
#   - no crash and no hang: an exit status below 128 and not a timeout;
#   - the documented exit status: 0, or 1 with exactly one stderr line
#     "tflame: ..." naming the file;
#   - no raw control byte from the profile on stdout or stderr (C0, DEL,
#     C1 such as CSI U+009B, a lone 0x9b byte, bidi overrides such as
#     U+202E): whatever tflame prints must be safe to show in a terminal.
#
# The 1 GB file of a single repeated sample is too slow for make check
# under ASan: it is generated only with TFLAME_SLOW_TESTS=1.
#
# A FIFO nobody writes to blocks in open(2), as it does for cat: tflame
# waits for a writer. The test accepts only that (killed by timeout) or a
# clean exit; a writer that sends a profile and closes must give it.

. "$top_srcdir/tests/lib.sh"

d=$tmpdir
limit_kb=2097152	# 2 GiB of address space
time_limit=20

# ASan reserves terabytes of shadow memory: no address space limit then.
# Nor under valgrind (make check-valgrind), which also runs some 50 times
# slower.
if [ -n "${TFLAME_VALGRIND:-}" ]; then
	vlimit=unlimited
	time_limit=600
elif grep -a -q -e __asan_init -e __msan_init -e __tsan_init "$tflame_binary"; then
	vlimit=unlimited
else
	vlimit=$limit_kb
fi

# run ARGS...: tflame under the limits; sets $status, fills out and err.
run() {
	(ulimit -v "$vlimit" 2>/dev/null
	 exec timeout -k 5 "$time_limit" "$TFLAME" "$@") \
		>"$d/out" 2>"$d/err" </dev/null
	status=$?
}

# unsafe FILE: true if FILE holds a byte a terminal would act on.
unsafe() {
	LC_ALL=C grep -q -P \
	    '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]' \
	    "$1" && return 0
	# A byte that is not UTF-8 (a lone 0x9b is CSI on some terminals).
	! iconv -f UTF-8 -t UTF-8 <"$1" >/dev/null 2>&1
}

# judge WHAT FILE [ANY]: the verdict on the last run. With ANY, any clean
# exit status (below 128, not a timeout) is accepted.
judge() {
	what=$1 file=$2 any=${3-}
	base=${file##*/}
	lines=$(wc -l <"$d/err")
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		not_ok "$what" "timed out after ${time_limit}s"
	elif [ "$status" -ge 128 ]; then
		not_ok "$what" "killed by a signal: exit $status" "$(tail -5 "$d/err")"
	elif unsafe "$d/out"; then
		not_ok "$what" "raw control bytes on stdout"
	elif unsafe "$d/err"; then
		not_ok "$what" "raw control bytes on stderr"
	elif [ -n "$any" ]; then
		ok "$what (exit $status)"
	elif [ "$status" -eq 0 ]; then
		ok "$what (exit 0)"
	elif [ "$status" -ne 1 ]; then
		not_ok "$what" "exit $status, want 0 or 1" "$(head -3 "$d/err")"
	elif [ "$lines" -ne 1 ]; then
		not_ok "$what" "$lines lines on stderr, want 1" "$(head -3 "$d/err")"
	elif ! grep -q "^tflame: .*$base" "$d/err"; then
		not_ok "$what" "the message does not name $base" "$(head -1 "$d/err")"
	else
		ok "$what (exit 1)"
	fi
}

# try WHAT FILE [ARGS...]: report and dump (which print names) on FILE.
try() {
	try_what=$1 try_file=$2
	shift 2
	for sub in report dump; do
		run $sub "$@" "$try_file"
		judge "$sub: $try_what" "$try_file"
	done
}

# try_collapse WHAT FILE [ARGS...]: collapse writes folded stacks, a data
# format that keeps names byte for byte, so only crashes, hangs and the
# exit status are checked.
try_collapse() {
	tc_what=$1 tc_file=$2
	shift 2
	run collapse "$@" "$tc_file"
	: >"$d/out"
	judge "collapse: $tc_what" "$tc_file"
}

# perf_sample COMM PID TIME PERIOD FRAME...: one perf script sample.
perf_sample() {
	printf '%s %s [000] %s: %s cycles:\n' "$1" "$2" "$3" "$4"
	shift 4
	for f; do
		printf '\t    55a3f0e1c2d3 %s+0x10 (/usr/bin/app)\n' "$f"
	done
	printf '\n'
}

# --- Size: depth and line length ----------------------------------------
awk 'BEGIN { printf "app 1 [000] 1.000000: 1000 cycles:\n";
	for (i = 100000; i > 0; i--) printf "\t    %x f%d+0x1 (/usr/bin/app)\n", i, i;
	printf "\n" }' >"$d/deep.perf"
try "100 000-frame perf stack" "$d/deep.perf"
# Printed a frame at a time: mawk builds a string by appending in
# quadratic time (85 s for this one line).
awk 'BEGIN { printf "main"; for (i = 1; i < 100000; i++) printf ";f%d", i; print " 7" }' \
	>"$d/deep.folded"
try "100 000-frame folded stack" "$d/deep.folded"
try_collapse "100 000-frame folded stack" "$d/deep.folded"
try_collapse "100 000-frame perf stack" "$d/deep.perf"

# A 10 MB frame name, in folded and perf form.
head -c 10485760 /dev/zero | tr '\0' 'a' >"$d/long"
{ printf 'main;'; cat "$d/long"; printf ' 3\n'; } >"$d/long-line.folded"
try "10 MB line (folded)" "$d/long-line.folded"
{ printf 'app 1 [000] 1.0: 1 cycles:\n\t    1 '; cat "$d/long"
  printf ' (/usr/bin/app)\n\n'; } >"$d/long-line.perf"
try "10 MB line (perf)" "$d/long-line.perf"
rm -f "$d/long"

# 100 000 nested papyrus calls: linear, not a walk down the stack per event.
awk 'BEGIN { print "Stack_1 log opened (PC)";
	for (i = 0; i < 100000; i++) printf "%d:PUSH:1:%d:None:f%d\n", i, i, i % 7;
	for (i = 99999; i >= 0; i--) printf "%d:POP:1:%d:None:f%d\n", 200000 - i, i, i % 7 }' \
	>"$d/deep.papyrus"
try "100 000 nested papyrus calls" "$d/deep.papyrus"

# --- Bytes that are not text --------------------------------------------
head -c 1048576 /dev/urandom >"$d/random.bin"
try "1 MB of random bytes" "$d/random.bin"
try "random bytes as pprof" "$d/random.bin" --format=pprof
try "random bytes as folded" "$d/random.bin" --format=folded
try_collapse "random bytes as folded" "$d/random.bin" --format=folded
try_collapse "random bytes as perf" "$d/random.bin" --format=perf
try "random bytes as perf" "$d/random.bin" --format=perf
printf 'main;f\0g 1\nmain\0;h 2\n' >"$d/nul.folded"
try "NUL bytes in folded names" "$d/nul.folded" --format=folded
{ perf_sample app 1 1.0 10 "f$(printf '\001')x" main
  printf 'app 1 [000] 2.0: 10 cycles:\n\t    1 g\0h+0x1 (/usr/bin/app)\n\n'; } \
	>"$d/nul.perf"
try "NUL bytes in perf names" "$d/nul.perf" --format=perf
try_collapse "NUL bytes in perf names" "$d/nul.perf" --format=perf
printf 'main;\377\376bad;\303\050;\355\240\200 5\nmain;\300\257 1\n' \
	>"$d/bad-utf8.folded"
try "invalid UTF-8 names" "$d/bad-utf8.folded"

# --- Names that are terminal escape sequences ----------------------------
esc=$(printf '\033')
{ printf 'main;%s[31mred%s[0m 1\n' "$esc" "$esc"
  printf 'main;%s]0;pwned\007 1\n' "$esc"
  printf 'main;%s]52;c;cHduZWQ=\007 1\n' "$esc"
  printf 'main;\302\2332J;\2332J 1\n'
  printf 'main;bell\007\007 1\n'
  printf 'main;back\010\010\010spaced 1\n'
  printf 'main;\342\200\256evil\342\200\254;\342\201\246iso 1\n'
  printf 'main;cr\rover;del\177 1\n'
  printf '%s[2J%s[H;%sc 2\n' "$esc" "$esc" "$esc"; } >"$d/escapes.folded"
# The check itself must be able to fail.
if unsafe "$d/escapes.folded" && ! unsafe "$d/deep.folded"; then
	ok "the control-byte check tells safe from unsafe"
else
	not_ok "the control-byte check tells safe from unsafe"
fi
try "names with ESC, CSI, OSC, BEL, BS, bidi (folded)" "$d/escapes.folded"
try_collapse "names with escapes (folded)" "$d/escapes.folded"
{ perf_sample "x${esc}[31m" 1 1.0 10 "${esc}]0;t$(printf '\007')" main
  perf_sample "$(printf '\342\200\256')abc" 2 2.0 10 \
	"$(printf 'a\010\010b')" "$(printf '\302\233')1m" main; } >"$d/escapes.perf"
try "names with escapes (perf)" "$d/escapes.perf"
try_collapse "names with escapes (perf)" "$d/escapes.perf"
run report --thread=1 "$d/escapes.perf"
judge "report --thread on an escaped comm" "$d/escapes.perf" any

# collapse into a file keeps the names byte for byte; to a terminal (a pty
# from script(1)) it escapes them. The pty turns each newline into CR LF:
# those CRs are its own, not the profile's. Standard error stays out: a
# slow run (valgrind on a busy machine) draws its progress line there, with
# its own erase-line escapes.
for f in escapes.folded escapes.perf; do
	run collapse "$d/$f"
	if [ "$status" -eq 0 ] && unsafe "$d/out"; then
		ok "collapse $f into a file: names byte for byte"
	else
		not_ok "collapse $f into a file: names byte for byte" "exit $status"
	fi
	if command -v script >/dev/null 2>&1; then
		TFLAME="$TFLAME" F="$d/$f" script -qec '"$TFLAME" collapse "$F" 2>/dev/null' /dev/null \
			</dev/null 2>&1 | tr -d '\r' >"$d/tty"
		if [ -s "$d/tty" ] && ! unsafe "$d/tty" &&
		   [ "$(wc -l <"$d/tty")" -eq "$(wc -l <"$d/out")" ] &&
		   grep -q '\\e\[' "$d/tty"; then
			ok "collapse $f to a terminal: names escaped"
		else
			not_ok "collapse $f to a terminal: names escaped" "$(head -c 300 "$d/tty")"
		fi
	fi
done

# The indented text formats: names, images and events with escapes, and
# an Instruments weight whose unit is an escape (quoted in the error).
bad=$(printf '%s[31mred\302\233x\342\200\256' "$esc")
{ printf 'Weight\tSelf Weight\t\tSymbol Name\n'
  printf '3.00 ms  100.0%%\t1.00 ms\t \t%s\n' "$bad"
  printf '2.00 ms  66.0%%\t2.00 ms\t \t %s]0;t\007\n' "$esc"; } >"$d/escapes.instruments"
try "names with escapes (Instruments)" "$d/escapes.instruments"
{ printf 'Weight\tSymbol Name\n1 ms\tmain\n2 %s[2J\t f\n' "$esc"; } >"$d/escunit.instruments"
try "a weight unit that is an escape (Instruments)" "$d/escunit.instruments"
{ printf '@ ev%s[2J [3 samples]\n' "$esc"
  printf '100.0%%  [3]  %s @ /lib/%s]0;t\007\n' "$bad" "$esc"
  printf ' 100.0%%  [3]  caller\001\n'; } >"$d/escapes.pmcstat"
try "names with escapes (pmcstat)" "$d/escapes.pmcstat"
{ printf 'S%s[2J log opened (PC)\n' "$esc"
  printf '1:PUSH:1:1:F%s[31m:%s\n2:PUSH:1:2:F:g\007\n5:POP:1:2:F:g\007\n9:POP:1:1:F:%s\n' \
	"$esc" "$bad" "$bad"; } >"$d/escapes.papyrus"
try "names with escapes (papyrus)" "$d/escapes.papyrus"

# A file name is profile data too: messages must escape it.
evil="$d/$(printf 'x\033]0;t\007\033[2J\342\200\256')"
run report "$evil.missing"
judge "a missing file whose name holds escapes" "x" any
cp "$d/escapes.folded" "$evil.folded"
run report "$evil.folded"
judge "report on a file whose name holds escapes" "x" any
printf '\012\377\377\377\377\017' >"$evil.pb"
run report --format=pprof "$evil.pb"
judge "a bad file whose name holds escapes" "x" any

# --- Numbers -----------------------------------------------------------
big=99999999999999999999999999
{ printf 'main;a %s\n' "$big"
  printf 'main;b 18446744073709551615\nmain;b 18446744073709551615\n'
  printf 'main;c 18446744073709551616\nmain;d 1e400\nmain;e 0x10\n'; } \
	>"$d/overflow.folded"
try "counts past 64 bits (folded)" "$d/overflow.folded"
try_collapse "counts past 64 bits (folded)" "$d/overflow.folded"
{ perf_sample app "$big" 1.0 10 f main
  perf_sample app "$big/$big" "$big.$big" "$big" g main
  perf_sample app 1 1.0 18446744073709551615 h main
  perf_sample app 1 2.0 18446744073709551615 h main; } >"$d/overflow.perf"
try "pids, times and periods past 64 bits (perf)" "$d/overflow.perf"
try_collapse "pids, times and periods past 64 bits (perf)" "$d/overflow.perf"
{ printf 'main;neg -5\nmain;zero 0\nmain;ok 3\nmain;minus -0\n'
  printf 'main;both 1 -1\nmain;huge -99999999999999999999\n'; } \
	>"$d/weights.folded"
try "negative and zero weights (folded)" "$d/weights.folded"
try_collapse "negative and zero weights (folded)" "$d/weights.folded"
printf 'main;zero 0\nmain;zero 0\n' >"$d/all-zero.folded"
try "only zero weights (folded)" "$d/all-zero.folded"
{ perf_sample app 1 1.0 -5 f main
  perf_sample app 1 2.0 0 g main
  perf_sample app 1 3.0 7 h main; } >"$d/weights.perf"
try "negative and zero periods (perf)" "$d/weights.perf"
try_collapse "negative and zero periods (perf)" "$d/weights.perf"
{ perf_sample app 1 9.0 10 f main
  perf_sample app 1 5.0 10 g main
  perf_sample app 1 0.000001 10 h main
  perf_sample app 1 7.5 10 f main; } >"$d/backwards.perf"
try "timestamps going backwards (perf)" "$d/backwards.perf"
run report --weight=time "$d/backwards.perf"
judge "report --weight=time, timestamps going backwards" "$d/backwards.perf" any
cat >"$d/backwards.json" <<'EOF'
{"traceEvents":[
{"name":"a","ph":"B","ts":100,"pid":1,"tid":1},
{"name":"b","ph":"B","ts":50,"pid":1,"tid":1},
{"name":"b","ph":"E","ts":10,"pid":1,"tid":1},
{"name":"a","ph":"E","ts":5,"pid":1,"tid":1},
{"name":"c","ph":"X","ts":-40,"dur":-3,"pid":1,"tid":1},
{"name":"d","ph":"X","ts":1e300,"dur":1e300,"pid":1,"tid":1}]}
EOF
try "chrome trace going backwards, negative durations" "$d/backwards.json"

# --- Damaged containers ------------------------------------------------
awk 'BEGIN { for (i = 0; i < 20000; i++) print "main;f;g " i }' >"$d/plain.folded"
gzip -c "$d/plain.folded" | head -c 3000 >"$d/cut.folded.gz"
try "truncated gzip" "$d/cut.folded.gz"
try_collapse "truncated gzip" "$d/cut.folded.gz"
gzip -c "$d/plain.folded" | head -c 12 >"$d/header-only.gz"
try "gzip header only" "$d/header-only.gz"
if command -v zstd >/dev/null 2>&1; then
	zstd -q -c "$d/plain.folded" | head -c 3000 >"$d/cut.folded.zst"
	try "truncated zstd" "$d/cut.folded.zst"
	try_collapse "truncated zstd" "$d/cut.folded.zst"
fi

# 100 000 nested arrays, in a bare file and where each JSON importer looks.
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; print "" }' >"$d/brackets"
cp "$d/brackets" "$d/nested.json"
try "100 000 nested [ (detected)" "$d/nested.json"
{ printf '{"traceEvents":'; cat "$d/brackets"; } >"$d/nested-chrome.json"
try "100 000 nested [ in a chrome trace" "$d/nested-chrome.json" --format=chrome
{ printf '{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":'
  cat "$d/brackets"; } >"$d/nested-speedscope.json"
try "100 000 nested [ in speedscope" "$d/nested-speedscope.json" --format=speedscope
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "{\"a\":"; print "" }' \
	>"$d/nested-objects.json"
try "100 000 nested { (detected)" "$d/nested-objects.json"

# Protobuf fields whose lengths run past the end of the file.
printf '\012\377\377\377\377\017\010\001' >"$d/past-end.pb"
try "protobuf length past the end (pprof)" "$d/past-end.pb" --format=pprof
try_collapse "protobuf length past the end (pprof)" "$d/past-end.pb" --format=pprof
printf '\012\006\010\001\020\377\377\377\377\377\377\377\377\377\377\001' \
	>"$d/varint.pb"
try "protobuf overlong varint (pprof)" "$d/varint.pb" --format=pprof
printf '\012\010\012\200\200\200\200\010\010\001\062\003abc' >"$d/nested-past.pb"
try "protobuf nested length past the end (pprof)" "$d/nested-past.pb" --format=pprof
gzip -c "$d/past-end.pb" >"$d/past-end.pb.gz"
try "gzipped protobuf past the end (pprof)" "$d/past-end.pb.gz" --format=pprof

# JFR chunk headers that claim what is not there: an exabyte chunk (the
# buffer grows with what is read, not with the claim), a metadata offset
# past the end, and random bytes after a good magic.
be64() { # N: eight bytes, big-endian
	_i=56
	while [ $_i -ge 0 ]; do
		# shellcheck disable=SC2059
		printf "\\$(printf %03o $(($1 >> _i & 255)))"
		_i=$((_i - 8))
	done
}
jfr_header() { # SIZE METADATA-OFFSET
	printf 'FLR\000\000\002\000\001'
	be64 "$1"; be64 0; be64 "$2"; be64 0; be64 0; be64 0; be64 1000000000
	printf '\000\000\000\000'
}
{ jfr_header 4611686018427387904 68; head -c 1000 /dev/urandom; } >"$d/huge-chunk.jfr"
try "JFR chunk of 4 EB (probed)" "$d/huge-chunk.jfr"
{ jfr_header 1068 5000; head -c 1000 /dev/urandom; } >"$d/meta-past.jfr"
try "JFR metadata offset past its chunk" "$d/meta-past.jfr"
{ jfr_header 1048644 68; cat "$d/random.bin"; } >"$d/random.jfr"
try "JFR header and 1 MB of random bytes" "$d/random.jfr"
try "random bytes as jfr" "$d/random.bin" --format=jfr

# --- Files that are not regular files ------------------------------------
: >"$d/empty"
try "empty file" "$d/empty"
mkdir "$d/a-directory"
try "a directory" "$d/a-directory"
try_collapse "a directory" "$d/a-directory"

if mkfifo "$d/fifo" 2>/dev/null; then
	(sleep 1; printf 'main;f 2\nmain;g 1\n' >"$d/fifo") &
	writer=$!
	run report "$d/fifo"
	judge "FIFO with a writer" "$d/fifo"
	if [ "$status" -eq 0 ] && grep -q 'main' "$d/out"; then
		ok "FIFO with a writer: the profile is read"
	else
		not_ok "FIFO with a writer: the profile is read" "exit $status"
	fi
	wait "$writer"
	# Nobody writes: open(2) blocks as it would for cat. Only a timeout
	# or a clean exit is acceptable.
	(ulimit -v "$vlimit" 2>/dev/null
	 exec timeout -k 2 2 "$TFLAME" report "$d/fifo") >"$d/out" 2>"$d/err"
	status=$?
	if [ "$status" -eq 124 ] || [ "$status" -lt 128 ]; then
		ok "FIFO with no writer: waits, killed by timeout (exit $status)"
	else
		not_ok "FIFO with no writer" "exit $status" "$(tail -3 "$d/err")"
	fi
fi

# A file cut short while it is read. The load takes a few tens of
# milliseconds, so the cut comes at several delays to land inside it at
# least once; the sample count says whether it did.
perf_sample app 1 1.0 10 leaf mid main >"$d/one.perf"
cp "$d/one.perf" "$d/big.perf"
i=0
while [ $i -lt 17 ]; do		# 2^17 samples, 20 MB
	cat "$d/big.perf" "$d/big.perf" >"$d/2x.perf"
	mv "$d/2x.perf" "$d/big.perf"
	i=$((i + 1))
done
for delay in 0 0.01 0.02 0.04 0.08; do
	cp "$d/big.perf" "$d/shrinking.perf"
	(sleep $delay; truncate -s 1000 "$d/shrinking.perf") &
	cutter=$!
	run report "$d/shrinking.perf"
	wait "$cutter"
	n=$(sed -n 's/^samples *\([0-9]*\).*/\1/p' "$d/out")
	judge "perf file cut to 1000 bytes after ${delay}s: ${n:-no} samples" \
		"$d/shrinking.perf" any
done
rm -f "$d/big.perf" "$d/shrinking.perf"

# --- Slow: a 1 GB file of a single repeated sample -------------------------
if [ "${TFLAME_SLOW_TESTS-}" = 1 ]; then
	# Double one sample up to 1 GiB.
	cp "$d/one.perf" "$d/1g.perf"
	while [ "$(wc -c <"$d/1g.perf")" -lt 1073741824 ]; do
		cat "$d/1g.perf" "$d/1g.perf" >"$d/2x.perf"
		mv "$d/2x.perf" "$d/1g.perf"
	done
	time_limit=600
	run report "$d/1g.perf"
	judge "1 GB of one repeated sample" "$d/1g.perf"
	rm -f "$d/1g.perf"
fi

finish
