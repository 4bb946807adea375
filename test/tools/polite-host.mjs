// The simulated host of test/integration/host-gate-processes.test.ts, in a process of its own so
// that the arrival times it records are not held back by the test process's work (the embedded
// DynamoDB answers the workers from there). Prints `listening <port>`; on "report" on stdin,
// prints every arrival and the peak of requests in flight as one JSON line.
// argv: crawl-delay seconds, hold ms, retry-after seconds.
import http from 'node:http';

const [crawlDelayS, holdMs, retryAfterS] = process.argv.slice(2).map(Number);
const arrivals = [];
let inFlight = 0;
let peak = 0;
let paused = false;

const server = http.createServer((req, res) => {
  const path = req.url ?? '/';
  const at = Date.now();
  if (path === '/robots.txt') {
    arrivals.push({ at, path, status: 200 });
    res.writeHead(200, { 'content-type': 'text/plain' });
    return res.end(`User-agent: *\nCrawl-delay: ${crawlDelayS}\nAllow: /\n`);
  }
  // The first page request, whichever process sent it, is told to come back later: the others
  // have pages left to fetch.
  if (path.startsWith('/p/') && !paused) {
    paused = true;
    arrivals.push({ at, path, status: 429 });
    res.writeHead(429, { 'retry-after': String(retryAfterS), 'content-type': 'text/plain' });
    return res.end('slow down');
  }
  arrivals.push({ at, path, status: 200 });
  peak = Math.max(peak, ++inFlight);
  setTimeout(() => {
    inFlight--;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html><body><h1>${path}</h1></body></html>`);
  }, holdMs);
});

server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
let input = '';
process.stdin.on('data', (chunk) => {
  input += chunk;
  if (input.includes('report\n')) process.stdout.write(`${JSON.stringify({ arrivals, peak })}\n`);
});
process.stdin.on('end', () => server.close());
