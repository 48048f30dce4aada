// Time speedscope from loading a profile to its first drawn flame graph.
//
// usage: node speedscope-time.js RELEASE_DIR PROFILE TIMEOUT_S
//   (playwright-core must be on NODE_PATH; CHROMIUM names the browser,
//   default /usr/bin/chromium; SPEEDSCOPE_SCREENSHOT=FILE.png saves what
//   the page shows when the clock stops)
//
// It serves speedscope's built app (RELEASE_DIR, its index.html) and
// PROFILE from a loopback HTTP server, starts headless Chromium with a
// fresh profile directory, and only then starts the clock: it opens
// index.html#profileURL=PROFILE, as speedscope's own "load from URL" does,
// and stops the clock when speedscope has imported the profile (it then
// sets the page's title to "NAME - speedscope") and the browser has drawn
// two frames after that, the first of which paints the flame graph.
// It prints the milliseconds, or "error: WHY" and exits 1.
'use strict';
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const [releaseDir, profile, timeoutArg] = process.argv.slice(2);
if (!profile) {
	console.error('usage: speedscope-time.js RELEASE_DIR PROFILE TIMEOUT_S');
	process.exit(2);
}
const timeoutMs = Number(timeoutArg || 600) * 1000;
const types = { '.html': 'text/html', '.js': 'text/javascript',
	'.css': 'text/css', '.json': 'application/json',
	'.wasm': 'application/wasm', '.woff2': 'font/woff2' };

function fail(why) {
	console.log('error: ' + why);
	process.exit(1);
}

const server = http.createServer((req, res) => {
	const url = decodeURIComponent(req.url.split(/[?#]/)[0]);
	const file = url === '/profile.txt' ? profile :
		path.join(releaseDir, path.normalize(url).replace(/^(\.\.[/\\])+/, ''));
	fs.stat(file, (err, st) => {
		if (err || !st.isFile()) {
			res.writeHead(404);
			res.end();
			return;
		}
		res.writeHead(200, { 'Content-Type': types[path.extname(file)] ||
			'application/octet-stream', 'Content-Length': st.size });
		fs.createReadStream(file).pipe(res);
	});
});

async function main() {
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const base = `http://127.0.0.1:${server.address().port}`;
	const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'speedscope-chromium-'));
	let context;
	const timer = setTimeout(() => fail(`no flame graph after ${timeoutMs / 1000} s`), timeoutMs);
	try {
		context = await chromium.launchPersistentContext(userDir, {
			executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
			headless: true,
			args: ['--no-sandbox', '--disable-gpu', '--disable-quic',
				'--no-first-run', '--disable-background-networking',
				'--disable-component-update', '--disable-sync'],
			viewport: { width: 1600, height: 900 },
		});
		const page = context.pages()[0] || await context.newPage();
		let failure = null;
		page.on('dialog', (d) => { failure = 'speedscope says: ' + d.message(); d.dismiss().catch(() => {}); });
		page.on('crash', () => { failure = 'the page crashed (out of memory?)'; });
		page.on('pageerror', (e) => { failure = failure || 'page error: ' + e.message; });

		const start = Date.now();
		await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(base + '/profile.txt')}`,
			{ waitUntil: 'commit', timeout: timeoutMs });
		for (;;) {
			if (failure)
				fail(failure);
			const state = await page.evaluate(() => ({
				title: document.title,
				error: /Something went wrong/.test(document.body ? document.body.innerText : ''),
			})).catch(() => ({ title: '', error: false }));
			if (state.error)
				fail('speedscope could not import the profile');
			if (/ - speedscope$/.test(state.title))
				break;
			await new Promise((r) => setTimeout(r, 10));
		}
		await page.evaluate(() => new Promise((r) =>
			requestAnimationFrame(() => requestAnimationFrame(r))));
		const ms = Date.now() - start;
		if (failure)
			fail(failure);
		if (!(await page.$('canvas')))
			fail('no canvas on the page');
		if (process.env.SPEEDSCOPE_SCREENSHOT)
			await page.screenshot({ path: process.env.SPEEDSCOPE_SCREENSHOT });
		console.log(String(ms));
	} catch (e) {
		fail(String(e.message || e).split('\n')[0]);
	} finally {
		clearTimeout(timer);
		if (context)
			await context.close().catch(() => {});
		fs.rmSync(userDir, { recursive: true, force: true });
		server.close();
	}
}

main().then(() => process.exit(0));
