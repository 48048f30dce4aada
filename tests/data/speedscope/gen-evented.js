// Writes an evented speedscope profile of this script's own calls, timed
// as a tracer that reads a 19.2 MHz timer (the ARM generic timer of a
// Raspberry Pi, 52.083... ns a tick) times them: process.hrtime's
// nanoseconds counted in whole ticks, written in microseconds as ticks /
// 19.2. The times then have digits below the nanosecond
// (4265.364583333333), which is what tflame must round.
//
//	node gen-evented.js >fractional.speedscope.json
'use strict';

const TICKS_PER_US = 19.2;
const t0 = process.hrtime.bigint();

function now() {
	const ticks = Math.round(Number(process.hrtime.bigint() - t0) * TICKS_PER_US / 1000);

	return ticks / TICKS_PER_US;
}

const frames = [];
const index = new Map();
const events = [];

function frame(name, line) {
	if (!index.has(name)) {
		index.set(name, frames.length);
		frames.push({ name, file: 'gen-evented.js', line });
	}
	return index.get(name);
}

// Run fn as frame name, recording its open and close.
function traced(name, line, fn) {
	const f = frame(name, line);
	events.push({ type: 'O', frame: f, at: now() });
	const r = fn();
	events.push({ type: 'C', frame: f, at: now() });
	return r;
}

function spin(n) {
	let x = 0;
	for (let i = 0; i < n; i++)
		x += Math.sqrt(i);
	return x;
}

function fib(n) {
	return traced('fib', 38, () => (n < 2 ? spin(200) : fib(n - 1) + fib(n - 2)));
}

traced('main', 41, () => {
	for (let round = 0; round < 6; round++) {
		traced('parse', 43, () => spin(20000 + 3000 * round));
		traced('compute', 44, () => fib(6));
		traced('render', 45, () => traced('layout', 45, () => spin(15000)));
	}
});

const start = events[0].at, end = events[events.length - 1].at;
process.stdout.write(JSON.stringify({
	$schema: 'https://www.speedscope.app/file-format-schema.json',
	exporter: 'gen-evented.js',
	shared: { frames },
	profiles: [{
		type: 'evented', name: 'gen-evented.js', unit: 'microseconds',
		startValue: start, endValue: end, events,
	}],
}) + '\n');
