#!/bin/sh
# The layers and circles of the source (tools/check-includes): the tree
# passes, and small trees with one fault each fail with the file, line and
# problem named, so that the check is seen to catch what it says it does.
# Skipped (77) without python3.

. "$top_srcdir/tests/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	echo "python3 not found: skipping the include check"
	exit 77
fi

check=$top_srcdir/tools/check-includes

if python3 "$check" "$top_srcdir" >"$tmpdir/out" 2>"$tmpdir/err"; then
	ok "the source tree: no upward include, no circle"
else
	not_ok "the source tree: no upward include, no circle" "$(cat "$tmpdir/out")"
fi

# A tree of one module per layer, each including only below: clean.
tree=$tmpdir/tree
mkdir -p "$tree/src/tui" "$tree/src/core" "$tree/src/import" "$tree/include/tflame"
for m in profile:core model:core perf:import tui:tui; do
	name=${m%%:*}
	echo "/* $name */" >"$tree/include/tflame/$name.h"
done
cat >"$tree/src/core/profile.c" <<'C'
#include "tflame/profile.h"

int
profile_count(void)
{
	return 1;
}
C
cat >"$tree/src/import/perf.c" <<'C'
#include "tflame/perf.h"
#include "tflame/profile.h"

const struct importer importer_perf = { 0 };

int
perf_load(void)
{
	return profile_count();
}
C
cat >"$tree/src/core/model.c" <<'C'
#include "tflame/model.h"
#include "tflame/profile.h"

int
model_total(void)
{
	return profile_count();
}
C
cat >"$tree/src/tui/tui.c" <<'C'
#include "tflame/tui.h"
#include "tflame/model.h"

int
tui_run(void)
{
	return model_total();
}
C
cat >"$tree/src/main.c" <<'C'
#include "tflame/tui.h"

int
main(void)
{
	return tui_run();
}
C

# expect_fail NAME PATTERN...: the tree fails and prints every pattern.
expect_fail() {
	name=$1
	shift
	if python3 "$check" "$tree" >"$tmpdir/out" 2>"$tmpdir/err"; then
		not_ok "$name: fails" "$(cat "$tmpdir/out")"
		return
	fi
	for pattern in "$@"; do
		if ! grep -q -- "$pattern" "$tmpdir/out"; then
			not_ok "$name: says $pattern" "$(cat "$tmpdir/out")"
			return
		fi
	done
	ok "$name"
}

if python3 "$check" "$tree" >"$tmpdir/out" 2>&1; then
	ok "a clean small tree passes"
else
	not_ok "a clean small tree passes" "$(cat "$tmpdir/out")"
fi

# The core includes the explorer's header.
cp "$tree/src/core/model.c" "$tmpdir/model.c"
sed 's|#include "tflame/profile.h"|#include "tflame/tui.h"|' "$tmpdir/model.c" \
	>"$tree/src/core/model.c"
expect_fail "the core including the explorer's header" \
	'^src/core/model.c:2: includes tflame/tui.h of the explorer layer, above its own (core)'
cp "$tmpdir/model.c" "$tree/src/core/model.c"

# The core calls the explorer: named upward even through no header.
printf '\nint\nmodel_show(void)\n{\n\treturn tui_run();\n}\n' >>"$tree/src/core/model.c"
expect_fail "the core calling the explorer" \
	'^src/core/model.c:13: calls tui_run() of src/tui/tui.c, the explorer layer' \
	'a circle of calls between model, tui'
cp "$tmpdir/model.c" "$tree/src/core/model.c"

# Two modules of one layer calling each other, and including each other.
cat >"$tree/src/core/lens.c" <<'C'
#include "tflame/lens.h"
#include "tflame/model.h"

int
lens_apply(void)
{
	return model_total();
}
C
echo "/* lens */" >"$tree/include/tflame/lens.h"
sed 's|return profile_count();|return lens_apply();|; s|#include "tflame/profile.h"|#include "tflame/lens.h"|' \
	"$tmpdir/model.c" >"$tree/src/core/model.c"
expect_fail "two modules of the core depending on each other" \
	'^src/core/lens.c:2: a circle of includes between lens, model' \
	'a circle of calls between lens, model: lens -> model (src/core/lens.c:7: model_total())'
cp "$tmpdir/model.c" "$tree/src/core/model.c"
rm "$tree/src/core/lens.c" "$tree/include/tflame/lens.h"

# The core knows an importer by name.
sed 's|return profile_count();|return \&importer_perf != 0;|' "$tmpdir/model.c" \
	>"$tree/src/core/model.c"
expect_fail "the core naming an importer" \
	'^src/core/model.c:7: names importer_perf of src/import/perf.c'
cp "$tmpdir/model.c" "$tree/src/core/model.c"

# A header no layer claims.
echo "/* orphan */" >"$tree/include/tflame/orphan.h"
expect_fail "a header of no module" '^include/tflame/orphan.h:1: no src/\*\*/orphan.c'
rm "$tree/include/tflame/orphan.h"

finish
