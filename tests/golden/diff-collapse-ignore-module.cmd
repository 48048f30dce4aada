collapse --diff --ignore-module tests/data/diff/stripped-base.perf.txt tests/data/diff/stripped-new.perf.txt
