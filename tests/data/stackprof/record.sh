#!/bin/sh
# Re-record the stackprof profiles from prog.rb (Debian: ruby-stackprof):
# run from this directory. The path of prog.rb is written as /src/prog.rb
# so that no build machine's path is kept.
set -e
for mode in cpu wall object; do
	case $mode in
	object) interval=10; rounds=2 ;;
	*) interval=1000; rounds=30 ;;
	esac
	ruby -rstackprof -rjson -e '
		require "./prog"
		mode, interval, rounds = ARGV[0].to_sym, ARGV[1].to_i, ARGV[2].to_i
		data = StackProf.run(mode: mode, interval: interval, raw: true) { run(rounds) }
		puts JSON.generate(data)' $mode $interval $rounds |
	sed "s#$(pwd)/#/src/#g" >$mode.json
done
