#!/bin/sh
# Shell completion: the bash script (data/completion/bash/tflame) sourced
# in bash, asked to complete command lines as bash would, with COMPREPLY
# checked; and tflame __complete, which it asks. The zsh script is
# checked for syntax when zsh is installed. Skipped (77) without bash.

. "$top_srcdir/tests/lib.sh"

if ! command -v bash >/dev/null 2>&1; then
	echo "skipped: no bash"
	exit 77
fi

script=$top_srcdir/data/completion/bash/tflame
data=$top_srcdir/tests/data
# The tflame the completion runs is the one on PATH, as typed.
PATH=$(dirname "$TFLAME"):$PATH
export PATH

# complete LINE: the replies for LINE with the cursor at its end, sorted,
# one a line.
complete() {
	bash -c '
		. "$1" || exit 99
		COMP_LINE=$2
		COMP_POINT=${#COMP_LINE}
		_tflame
		printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort' sh "$script" "$1"
}

# check NAME LINE WANT: the replies for LINE are the lines of WANT.
check() {
	got=$(cd "$tmpdir/empty" && complete "$2")
	if [ "$got" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "line: $2" "want: $(echo "$3" | tr '\n' ' ')" \
			"got:  $(echo "$got" | tr '\n' ' ')"
	fi
}

mkdir "$tmpdir/empty" || exit 99
nl='
'

# ------------------------------------------------------------ words
check "subcommands, in a directory with no file" "tflame " \
	"collapse${nl}diff${nl}dump${nl}export${nl}report"
check "a subcommand from its start" "tflame rep" "report"
check "a file from its start" "tflame report $data/perf/multi-ev" "$data/perf/multi-event.txt"
check "no subcommand after the first word" "tflame $data/perf/multi-event.txt re" ""

# ------------------------------------------------------------ options
check "report's options from their start" "tflame report --li" "--limit=${nl}--lines"
check "the explorer's options: --source-dir, no --json" "tflame --so" "--source-dir="
check "collapse has --event-filter, not --event" "tflame collapse --ev" "--event-filter="
check "dump's --view" "tflame dump --vi" "--view="

# ------------------------------------------------------------ values
f=$data/perf/multi-event.txt
check "--event= offers the file's events" "tflame report $f --event=" \
	"cache-misses${nl}cycles${nl}instructions"
check "--event VALUE, as a word of its own" "tflame $f --event c" \
	"cache-misses${nl}cycles"
check "collapse --event-filter= after the file" "tflame collapse $f --event-filter=in" \
	"instructions"
# perf's event names hold colons, where bash breaks words: the replies are
# what follows the last colon.
check "an event with colons" "tflame report $data/perf/srcline.txt --event=cpu-clock:p" \
	"pppH"
f=$data/recorded/pid-tid-period.txt
check "--thread= with no file yet: nothing to offer" "tflame dump --thread=" ""
check "--thread= offers the file's tids" "tflame dump $f --thread=" "12066${nl}12068"
check "--pid= offers its pids" "tflame report $f --pid=1" "12066"
check "--comm= offers its thread names" "tflame $f --comm=c" "compressor"
check "--view= values" "tflame dump --view=" "left-heavy${nl}sandwich${nl}time-order"
check "--format= values from the importers" "tflame report --format=p" \
	"papyrus${nl}perf${nl}perf.data${nl}pmcstat${nl}pprof"
check "--weight values" "tflame report --weight " "period${nl}samples"
check "--limit takes no completion" "tflame report --limit=" ""
check "export's --to= values" "tflame export --to=" "folded${nl}speedscope${nl}svg"
check "export's --colors= values" "tflame export --colors=" "function${nl}kind${nl}module"

# Every view it offers, dump takes.
for v in $("$TFLAME" __complete values view); do
	if "$TFLAME" dump --view="$v" --height=3 --width=40 "$data/folded/basic.txt" >/dev/null 2>&1; then
		ok "dump takes --view=$v"
	else
		not_ok "dump refuses --view=$v, which the completion offers"
	fi
done

# Every format and colour mode it offers, export takes.
for v in $("$TFLAME" __complete values to); do
	for c in $("$TFLAME" __complete values colors); do
		if "$TFLAME" export --to="$v" --colors="$c" "$data/folded/basic.txt" -o "$tmpdir/e" \
			>/dev/null 2>&1; then
			ok "export takes --to=$v --colors=$c"
		else
			not_ok "export refuses --to=$v --colors=$c, which the completion offers"
		fi
	done
done

# ------------------------------------------------------------ __complete
# Quick and quiet: stdin is never read, a bad file prints nothing.
if [ -z "$(echo 'a;b 1' | "$TFLAME" __complete events - 2>&1)" ] &&
	[ -z "$("$TFLAME" __complete events "$tmpdir/missing" 2>&1)" ] &&
	[ -z "$("$TFLAME" __complete threads "$top_srcdir/README.md" 2>&1)" ]; then
	ok "__complete: nothing for stdin, a missing file or a non-profile"
else
	not_ok "__complete printed something for stdin, a missing file or a non-profile"
fi
"$TFLAME" __complete threads "$data/recorded/pid-tid-period.txt" >"$tmpdir/out"
printf '12066\tdemo\n12068\tcompressor\n' >"$tmpdir/want"
if cmp -s "$tmpdir/want" "$tmpdir/out"; then
	ok "__complete threads: tid and name, tab-separated"
else
	not_ok "__complete threads" "$(cat "$tmpdir/out")"
fi
"$TFLAME" __complete nonsense >/dev/null 2>&1
if [ $? -eq 2 ]; then
	ok "__complete: an unknown request is a usage error"
else
	not_ok "__complete nonsense: exit status not 2"
fi

# ------------------------------------------------------------ zsh
if command -v zsh >/dev/null 2>&1; then
	if zsh -n "$top_srcdir/data/completion/zsh/_tflame" 2>"$tmpdir/err"; then
		ok "zsh: _tflame parses"
	else
		not_ok "zsh: _tflame does not parse" "$(cat "$tmpdir/err")"
	fi
fi
finish
