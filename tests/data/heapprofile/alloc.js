// Allocates on two paths, one through an anonymous function, for
// node --heap-prof (see README).
function strings(n) { const a = []; for (let i = 0; i < n; i++) a.push('s' + i); return a; }
function objects(n) { const a = []; for (let i = 0; i < n; i++) a.push({i, b: [i]}); return a; }
const keep = [];
for (let r = 0; r < 20; r++) {
	keep.push(strings(5000));
	keep.push((() => objects(3000))());
}
console.log(keep.length);
