// A 120-frame chain, entered now and then between long stretches of busy
// work: a deep, fast-changing stack of tiny boxes.
let src = 'function leaf() { let s = 0; for (let i = 0; i < 40000; i++) s += i % 3; return s; }\n';
for (let i = 119; i >= 0; i--)
	src += `function level${i}() { return ${i === 119 ? 'leaf()' : `level${i + 1}()`} + 1; }\n`;
src += 'return level0;';
const level0 = new Function(src)();
function busy() { let s = 0; for (let i = 0; i < 4000000; i++) s += i % 7; return s; }
const t0 = Date.now();
while (Date.now() - t0 < 250) {
	busy();
	level0();
}
