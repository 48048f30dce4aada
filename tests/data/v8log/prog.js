function leaf(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i); return s; }
function fast() { return leaf(2e5); }
function slow() { return leaf(6e5) + JSON.stringify(new Array(2000).fill({a: 1})).length; }
const run = (rounds) => { let t = 0; for (let r = 0; r < rounds; r++) t += fast() + slow(); return t; };
console.log(run(40) > 0);
