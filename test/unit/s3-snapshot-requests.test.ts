// The search snapshot's S3 requests on the wire (lambdas/adapters/search/s3-snapshot.ts): the S3
// client with its own HTTP handler against a loopback server standing in for S3 (path-style), so
// the test sees exactly what the adapter sends: method, path, signed headers, content type and
// encoding, and the bytes, which come back unchanged; S3's error answers and their retries.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { S3Client } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { s3SnapshotStore } from '../../lambdas/adapters/search/s3-snapshot';

const CREDENTIALS = { accessKeyId: 'AKIDSNAPSHOT', secretAccessKey: 'secret/key+1', sessionToken: 'session-token-1' };
const BUCKET = 'pds-search-snapshots';
const KEY = 'search/index.json.gz';
const PATH = `/${BUCKET}/${KEY}`;

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

type Answer = { status: number; body?: string | Buffer };
const xmlError = (status: number, code: string, message: string): Answer => ({
  status,
  body: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
});

let server: Server | undefined;
afterEach(async () => {
  await new Promise((done) => server?.close(done) ?? done(undefined));
  server = undefined;
});

/**
 * A loopback S3 that keeps what is PUT and serves it to GETs (NoSuchKey when absent); `answers`,
 * in turn, replace its answer for the first requests (the last one repeats).
 */
async function s3(answers: Answer[] = []): Promise<{ client: S3Client; received: Received[] }> {
  const received: Received[] = [];
  const objects = new Map<string, Buffer>();
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) };
      received.push(request);
      const path = request.url.split('?')[0]!;
      const scripted = answers.length ? answers[Math.min(received.length - 1, answers.length - 1)] : undefined;
      const answer: Answer =
        scripted ??
        (request.method === 'PUT'
          ? (objects.set(path, request.body), { status: 200 })
          : objects.has(path)
            ? { status: 200, body: objects.get(path) }
            : xmlError(404, 'NoSuchKey', 'The specified key does not exist.'));
      const type = answer.status === 200 && request.method === 'GET' ? 'application/gzip' : 'application/xml';
      res.writeHead(answer.status, { 'content-type': type }).end(answer.body ?? '');
    });
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  const client = new S3Client({
    region: 'eu-west-1',
    endpoint: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`,
    forcePathStyle: true,
    credentials: CREDENTIALS,
  });
  return { client, received };
}

/** Signed by the client for this key, region and service, with the session's token. */
function expectSigned(request: Received) {
  expect(String(request.headers.authorization)).toMatch(
    /^AWS4-HMAC-SHA256 Credential=AKIDSNAPSHOT\/\d{8}\/eu-west-1\/s3\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
  );
  expect(request.headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
}

describe('search snapshots in S3', () => {
  it('saves with one PUT of the bytes as they are, typed application/gzip, and loads them back unchanged', async () => {
    const { client, received } = await s3();
    const store = s3SnapshotStore(client, BUCKET, KEY);
    const data = Buffer.concat([
      Buffer.from([0x1f, 0x8b, 8, 0, 0, 255]),
      Buffer.from('a snapshot \u00e9\u0000', 'utf8'),
    ]);
    await store.save(data);
    expect(received).toHaveLength(1);
    const put = received[0]!;
    expect(put.method).toBe('PUT');
    expect(put.url.split('?')[0]).toBe(PATH);
    expect(put.headers['content-type']).toBe('application/gzip');
    // The object is stored as the .gz file it is: no content-encoding (gzip or aws-chunked) on it.
    expect(put.headers['content-encoding']).toBeUndefined();
    expect(put.headers['content-length']).toBe(String(data.length));
    expect(put.body).toEqual(data);
    expectSigned(put);

    expect(await store.load()).toEqual(data);
    expect(received).toHaveLength(2);
    const get = received[1]!;
    expect(get.method).toBe('GET');
    expect(get.url.split('?')[0]).toBe(PATH);
    expect(get.body).toHaveLength(0);
    expectSigned(get);
  });

  it("answers null when there is no snapshot yet (S3's NoSuchKey)", async () => {
    const { client, received } = await s3();
    expect(await s3SnapshotStore(client, BUCKET, KEY).load()).toBeNull();
    expect(received).toHaveLength(1);
  });

  it("fails with S3's error code on any other error, without retrying a 4xx", async () => {
    const { client, received } = await s3([xmlError(403, 'AccessDenied', 'Access Denied')]);
    await expect(s3SnapshotStore(client, BUCKET, KEY).load()).rejects.toMatchObject({
      name: 'AccessDenied',
      $metadata: { httpStatusCode: 403 },
    });
    expect(received).toHaveLength(1);
  });

  it('retries 5xx answers a bounded number of times', async () => {
    const busy = xmlError(503, 'SlowDown', 'Reduce your request rate.');
    const once = await s3([busy, { status: 200, body: 'x' }]);
    expect(await s3SnapshotStore(once.client, BUCKET, KEY).load()).toEqual(Buffer.from('x'));
    expect(once.received).toHaveLength(2);
    await new Promise((done) => server!.close(done));
    const always = await s3([busy]);
    await expect(s3SnapshotStore(always.client, BUCKET, KEY).save(Buffer.from('y'))).rejects.toMatchObject({
      name: 'SlowDown',
      $metadata: { httpStatusCode: 503 },
    });
    expect(always.received).toHaveLength(3);
    for (const request of always.received) expect(request.body).toEqual(Buffer.from('y'));
  });
});
