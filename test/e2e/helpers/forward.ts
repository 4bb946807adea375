// Passes a request on to a loopback port unchanged and pipes the answer back (502 when the
// target is gone): the test proxies in front of the store simulator use it.
import http from 'node:http';

export function forwardTo(port: number, req: http.IncomingMessage, res: http.ServerResponse): void {
  const upstream = http.request(
    { host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers },
    (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    },
  );
  upstream.on('error', () => {
    res.writeHead(502);
    res.end();
  });
  req.pipe(upstream);
}
