// Recorded into trace-node.json (see README) by
//
//	node --trace-event-categories v8,node.fs.sync \
//		--trace-event-file-pattern trace-node.json trace-node.js
//
// Synchronous file calls are B/E pairs; garbage collections are MinorGC
// B/E pairs with V8.GCScavenger X events inside them.
'use strict';
const fs = require('fs');

let keep = [];
for (let round = 0; round < 4; round++) {
	fs.readFileSync(__filename);
	for (let i = 0; i < 60000; i++)
		keep.push({ i, s: 'x'.repeat(i % 20) });
	keep = keep.slice(-1000);
	fs.statSync('.');
}
