#!/bin/sh
# Re-record fib.prof from fib.hs (Debian: ghc, ghc-prof): run from this
# directory. -fprof-auto gives every top-level binding a cost centre;
# +RTS -pj writes the profile as JSON. The end_time is set to a fixed
# date so that the file does not change with each run.
set -e
dir=$(mktemp -d)
cp fib.hs "$dir"
(cd "$dir" && ghc -O0 -prof -fprof-auto -rtsopts fib.hs >/dev/null && ./fib +RTS -pj -RTS >/dev/null)
sed 's/"end_time": "[^"]*"/"end_time": "Mon Nov 23 12:00 2026"/' "$dir/fib.prof" >fib.prof
rm -rf "$dir"
