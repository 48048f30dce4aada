// Anonymous functions for `node --cpu-prof` (tests/data/chrome/README): the
// module wrapper, a sort comparator and two arrows, beside named functions.
'use strict';

function sortRows(list) {
	// The comparator is anonymous: V8 names it by nothing.
	return list.sort(function (a, b) { return a.k - b.k || Math.sqrt(a.k) - Math.sqrt(b.k); });
}

function checksum(list) {
	let s = 0;
	for (let round = 0; round < 40; round++)
		for (const r of list)
			s = (s * 31 + r.k + round) % 1000003;
	return s;
}

const rows = [];
for (let i = 0; i < 20000; i++)
	rows.push({ k: (i * 7919) % 20011 });
let total = 0;
const end = Date.now() + 300;
while (Date.now() < end) {
	const copy = sortRows(rows.slice());
	total += checksum(copy);
	total += copy.map((r) => Math.log(r.k + 2) * Math.sqrt(r.k)).reduce((x, y) => x + Math.sqrt(y), 0);
}
console.log(total > 0 ? 'done' : 'never');
