// A small CPU-bound script for `node --cpu-prof`: the recorded profile is
// tests/data/chrome/fib.cpuprofile (see tests/data/chrome/README).
'use strict';

function fib(n) {
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

function busy(ms) {
	const end = Date.now() + ms;
	let x = 0;
	while (Date.now() < end)
		x += Math.sqrt(x + 1);
	return x;
}

let total = 0;
for (let i = 0; i < 5; i++) {
	total += fib(25);
	total += busy(20);
}
console.log(total > 0 ? 'done' : 'never');
