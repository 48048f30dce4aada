#!/bin/sh
# valgrind memcheck for make check-valgrind (Makefile.am), in three roles:
#
#	tests/valgrind.sh TEST          automake's LOG_COMPILER: a unit test
#	                                runs under memcheck; a shell test (*.sh)
#	                                runs as it is, and tests/lib.sh puts
#	                                every tflame it starts under memcheck
#	tests/valgrind.sh --run PROG ARGS...
#	                                PROG under memcheck (lib.sh's wrapper)
#	tests/valgrind.sh --summary     the verdict over every log: exit 1 on
#	                                any memcheck error or leak
#
# Logs go to $TFLAME_VALGRIND, a directory, one file per process: memcheck
# errors and definite or indirect leaks count; "still reachable" memory
# (ncurses keeps its terminal state until exit) does not. --error-exitcode
# makes a test fail at once, but the summary is the verdict, since some
# tests accept any exit status.

: "${TFLAME_VALGRIND:?set TFLAME_VALGRIND to a directory for the logs}"
supp=$(dirname "$0")/valgrind.supp

# No inline frames in the reports' stacks (--read-inline-info=no): reading
# them for every library (libc6-dbg's too) is a sixth of each process's
# start, 0.94 s against 0.79, and make check-valgrind starts some 1,500.
memcheck() {
	exec valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
		--show-leak-kinds=definite,indirect --read-inline-info=no \
		--errors-for-leak-kinds=definite,indirect --num-callers=30 \
		--suppressions="$supp" \
		--log-file="$TFLAME_VALGRIND/vg.%p.log" "$@"
}

case $1 in
--run)
	shift
	memcheck "$@" ;;
--summary)
	total=$(ls "$TFLAME_VALGRIND" | grep -c '^vg\.')
	# A child that execs (perf, gzip) leaves a log with no summary.
	bad=$(grep -l -E 'ERROR SUMMARY: [1-9]' "$TFLAME_VALGRIND"/vg.*.log)
	echo "valgrind: $total processes checked"
	if [ "$total" -eq 0 ]; then
		echo "valgrind: no logs in $TFLAME_VALGRIND"
		exit 1
	fi
	[ -z "$bad" ] && exit 0
	for log in $bad; do
		echo "----- $log"
		head -60 "$log"
	done
	echo "valgrind: $(echo "$bad" | wc -l) processes with errors or leaks"
	exit 1 ;;
*.sh)
	exec sh "$@" ;;
*)
	memcheck "$@" ;;
esac
