#!/bin/sh
# Screen tests of a tid that exec'd (sh, then python3): one thread, named
# by its names in order, in the thread picker (t), the tab bar and Time
# Order's lanes and details; "->" for the arrow where the locale is not
# UTF-8. On a recorded `perf record -g -- sh -c 'exec python3 ...'`,
# where the python3 process has a second thread. Skipped (77) when tmux
# is missing.

. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tmux.sh"

chain="$top_srcdir/tests/data/recorded/exec-chain.txt"

row() {
	screen | sed -n "$1p" | sed 's/ *$//'
}

# row_starts N TEXT: screen line N starts with TEXT.
row_starts() {
	case $(row "$1") in
	"$2"*) return 0 ;;
	*) return 1 ;;
	esac
}

no_text() {
	! screen | grep -qF -- "$1"
}

start 100 24
run "$TFLAME" "$chain"
wait_for " 1 Left Heavy" || bail "tflame did not start"
# Time Order: a lane per tid, the tid that exec'd one lane.
keys 2
check "the lane of the tid that exec'd" wait_for "▶ sh→python3 24115"
check "the other thread's lane" wait_for "  python3 24160"
check "two lanes, not three" wait_for "── lane 1 of 2: sh→python3 24115 ──"
check "the thread line of the details" wait_for "thread     sh→python3  pid 24115  tid 24115"
keys 1
check "Left Heavy again" wait_for " 1 Left Heavy"
keys t
check "the picker counts two threads, not one per name" \
	wait_for "Threads of cpu-clock:ppp: 2 of 2 ticked"
check "the process, named by its main thread's last name" \
	poll row_starts 4 " [x] python3                         24115             102 ms   100%"
check "the tid that exec'd is one row, its names in order" \
	row_starts 5 " [x]   sh→python3                    24115    24115   74.1 ms  72.5%"
check "the other thread" row_starts 6 " [x]   python3                       24115    24160   28.1 ms  27.5%"
check "no row of sh alone" no_text "   sh   "
# The filter finds the thread by its earlier name too.
keys s h
check "filtered by its first name" wait_for "filter: sh"
check "the thread that was sh stays" poll row_starts 5 " [x]   sh→python3"
check "the other thread goes" wait_gone "24160"
# Only the shown thread ticked, then applied: the tab bar names it.
keys C-o Enter
check "one thread, named by all its names" wait_for "│ 1 thread: sh→python3 24115 │"
check "its weight, sh's part and python3's" wait_for "│ 74.1 ms"

# Time Order on that thread alone: the details still name all of it.
keys 2
check "one thread: its lane alone, no overview" wait_gone "python3 24160"
check "the thread line, on one lane" wait_for "thread     sh→python3  pid 24115  tid 24115"
keys q
check "tflame exits" wait_for "EXIT=0"

# Where the locale is not UTF-8: "->" instead of the arrow.
start 100 24 LANG=C LC_ALL=C
run "$TFLAME" "$chain"
wait_for " 1 Left Heavy" || bail "tflame did not start in the C locale"
keys t
check "ASCII: the picker row" \
	poll row_starts 5 " [x]   sh->python3                   24115    24115   74.1 ms  72.5%"
keys Escape 2
check "ASCII: the lane" wait_for "> sh->python3 24115"
keys q
check "tflame exits in the C locale" wait_for "EXIT=0"

# --thread=TID: one thread, whatever its names (not one per name).
T send-keys -t tf clear Enter
poll_gone() { ! screen | grep -q "EXIT=0"; }
check "the shell is cleared" poll poll_gone
run "$TFLAME" --thread=24115 "$chain"
wait_for " 1 LH " || bail "tflame did not start with --thread"
check "--thread: one thread, all its names" wait_for "| 1 thread: sh->python3 24115 |"
keys q
check "tflame exits after --thread" wait_for "EXIT=0"
finish
