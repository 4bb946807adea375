// The search snapshot's S3 requests on the wire (lambdas/adapters/search/s3-signed-snapshot.ts):
// a loopback server stands in for S3 and each request's SigV4 signature is recomputed here from
// what arrived (canonical request, string to sign, signing key), independently of the signer.
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { S3RequestError, s3SignedSnapshotStore, snapshotUrl } from '../../lambdas/adapters/search/s3-signed-snapshot';

const CREDENTIALS = { accessKeyId: 'AKIDSNAPSHOT', secretAccessKey: 'secret/key+1', sessionToken: 'session-token-1' };

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

type Answer = { status: number; body?: string | Buffer };

let server: Server | undefined;
afterEach(async () => {
  await new Promise((done) => server?.close(done) ?? done(undefined));
  server = undefined;
});

async function s3(answers: Answer[]): Promise<{ endpoint: string; received: Received[] }> {
  const received: Received[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      const answer = answers[Math.min(received.length - 1, answers.length - 1)]!;
      res.writeHead(answer.status, { 'content-type': 'application/xml' }).end(answer.body ?? '');
    });
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return { endpoint: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, received };
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** SigV4 as AWS documents it, over the request the server received. */
function expectValidSignature(request: Received, region: string) {
  const auth = String(request.headers.authorization);
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  expect(match, auth).not.toBeNull();
  const [, accessKeyId, day, scopeRegion, signedHeaders, signature] = match!;
  expect(accessKeyId).toBe(CREDENTIALS.accessKeyId);
  expect(scopeRegion).toBe(region);
  const names = signedHeaders!.split(';');
  for (const required of ['host', 'x-amz-content-sha256', 'x-amz-date', 'x-amz-security-token'])
    expect(names).toContain(required);
  expect(request.headers['x-amz-content-sha256']).toBe(sha256(request.body));
  expect(request.headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
  const amzDate = String(request.headers['x-amz-date']);
  expect(amzDate.slice(0, 8)).toBe(day);
  const canonical = [
    request.method,
    request.url.split('?')[0],
    '',
    ...names.map((name) => `${name}:${String(request.headers[name]).trim().replace(/\s+/g, ' ')}`),
    '',
    signedHeaders,
    request.headers['x-amz-content-sha256'],
  ].join('\n');
  const scope = `${day}/${region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  let key: Buffer = hmac(`AWS4${CREDENTIALS.secretAccessKey}`, day!);
  for (const part of [region, 's3', 'aws4_request']) key = hmac(key, part);
  expect(signature).toBe(createHmac('sha256', key).update(toSign).digest('hex'));
}

const store = (endpoint: string, region = 'eu-west-1') =>
  s3SignedSnapshotStore({
    region,
    bucket: 'pds-search-snapshots',
    key: 'search/index.json.gz',
    credentials: async () => CREDENTIALS,
    endpoint,
  });

describe('search snapshots in S3 over signed requests', () => {
  it('loads the object with a signed GET (path-style on an endpoint)', async () => {
    const snapshot = Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3, 255]);
    const { endpoint, received } = await s3([{ status: 200, body: snapshot }]);
    expect(await store(endpoint).load()).toEqual(snapshot);
    expect(received).toHaveLength(1);
    expect(received[0]!.method).toBe('GET');
    expect(received[0]!.url).toBe('/pds-search-snapshots/search/index.json.gz');
    expect(received[0]!.headers.host).toBe(new URL(endpoint).host);
    expectValidSignature(received[0]!, 'eu-west-1');
  });

  it("answers null when there is no snapshot yet (S3's NoSuchKey)", async () => {
    const { endpoint } = await s3([
      {
        status: 404,
        body: '<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>',
      },
    ]);
    expect(await store(endpoint).load()).toBeNull();
  });

  it("fails with S3's error code on any other error, without retrying a 4xx", async () => {
    const { endpoint, received } = await s3([
      { status: 403, body: '<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>' },
    ]);
    const error = await store(endpoint)
      .load()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(S3RequestError);
    expect(error).toMatchObject({ name: 'AccessDenied', status: 403, code: 'AccessDenied' });
    expect(received).toHaveLength(1);
  });

  it('retries 5xx answers a bounded number of times', async () => {
    const busy = {
      status: 503,
      body: '<Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>',
    };
    const once = await s3([busy, { status: 200, body: 'x' }]);
    expect(await store(once.endpoint).load()).toEqual(Buffer.from('x'));
    expect(once.received).toHaveLength(2);
    await new Promise((done) => server!.close(done));
    const always = await s3([busy]);
    await expect(store(always.endpoint).load()).rejects.toMatchObject({ code: 'SlowDown', status: 503 });
    expect(always.received).toHaveLength(3);
  });

  it('saves with a signed PUT of the bytes as application/gzip', async () => {
    const { endpoint, received } = await s3([{ status: 200 }]);
    const data = Buffer.from('a gzip snapshot, byte for byte \u00e9', 'utf8');
    await store(endpoint, 'us-east-1').save(data);
    expect(received).toHaveLength(1);
    expect(received[0]!.method).toBe('PUT');
    expect(received[0]!.body).toEqual(data);
    expect(received[0]!.headers['content-type']).toBe('application/gzip');
    expectValidSignature(received[0]!, 'us-east-1');
  });

  it("addresses S3 in the bucket's region, virtual-hosted for a DNS-safe name", () => {
    expect(snapshotUrl({ region: 'eu-west-1', bucket: 'pds-snapshots-1', key: 'search/index.json.gz' }).href).toBe(
      'https://pds-snapshots-1.s3.eu-west-1.amazonaws.com/search/index.json.gz',
    );
    expect(snapshotUrl({ region: 'eu-west-1', bucket: 'pds.snapshots', key: 'a b/c' }).href).toBe(
      'https://s3.eu-west-1.amazonaws.com/pds.snapshots/a%20b/c',
    );
  });
});
