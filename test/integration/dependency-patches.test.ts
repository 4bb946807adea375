// The patches of patches/ (applied by patch-package at install), each doing its job and leaving
// the library's feature working.
//
// got+14.6.5.patch: got loads http2-wrapper, and Node's http2 with it, on the first HTTP/2 request
// instead of at import, about 50 ms of every cold start that fetches pages. We never ask for
// HTTP/2, but got's `http2: true` must keep working, in plain Node (the patch's createRequire path)
// and in a Lambda asset (esbuild bundles the plain require() of http2-wrapper and evaluates it on
// first use).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFunctions } from '../../lib/bundle';

const run = promisify(execFile);
const tls = (name: string) => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url), 'utf8');

// Imports got, says whether Node's http2 was loaded, then asks the loopback server over HTTP/2.
const PROBE = `
import got from 'got';
const before = process.moduleLoadList.includes('NativeModule http2');
const response = await got(process.argv[2], {
  http2: true,
  https: { certificateAuthority: process.argv[3] },
  retry: { limit: 0 },
  timeout: { request: 10000 },
});
console.log(JSON.stringify({ before, httpVersion: response.httpVersion, body: response.body }));
`;

let server: Http2SecureServer;
let url: string;

beforeAll(async () => {
  server = createSecureServer({ key: tls('loopback-key.pem'), cert: tls('loopback-cert.pem'), allowHTTP1: true });
  server.on('request', (request, response) => response.end(`over ${request.httpVersion}`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

const probe = async (file: string) => {
  const { stdout } = await run(process.execPath, [file, url, tls('loopback-cert.pem')], { timeout: 30_000 });
  return JSON.parse(stdout.trim().split('\n').pop()!) as { before: boolean; httpVersion: string; body: string };
};

describe('got with the http2-wrapper patch', () => {
  it('does not load http2 at import, and still speaks HTTP/2 when asked (plain Node)', async () => {
    // In the repository, so that `got` resolves from node_modules as the service's modules resolve it.
    const file = join(process.cwd(), 'test/fixtures/tls', `.probe-${process.pid}.mjs`);
    writeFileSync(file, PROBE);
    try {
      expect(await probe(file)).toEqual({ before: false, httpVersion: '2.0', body: 'over 2.0' });
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('does the same from an asset bundled as the stack bundles it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pds-got-h2-'));
    const entry = join(process.cwd(), 'test/fixtures/tls', `.entry-${process.pid}.mjs`);
    writeFileSync(entry, PROBE);
    try {
      bundleFunctions({ index: entry }, dir);
    } finally {
      rmSync(entry, { force: true });
    }
    expect(await probe(join(dir, 'index.mjs'))).toEqual({ before: false, httpVersion: '2.0', body: 'over 2.0' });
  });
});

// sanitize-html+2.17.0.patch: postcss loads on the first style attribute sanitize-html parses.
const SANITIZE_PROBE = `
const sanitize = require('sanitize-html');
const loaded = () => Object.keys(require.cache).some((file) => /[\\/]postcss[\\/]/.test(file));
const before = loaded();
const plain = sanitize('<p style="color:red">x</p>', { allowedTags: ['p'] });
const afterPlain = loaded();
const styled = sanitize('<span style="color:red;position:fixed">x</span>', {
  allowedTags: ['span'],
  allowedAttributes: { span: ['style'] },
  allowedStyles: { '*': { color: [/^red$/] } },
});
console.log(JSON.stringify({ before, plain, afterPlain, styled, after: loaded() }));
`;

describe('sanitize-html with the postcss patch', () => {
  it('loads postcss only to parse a style attribute it allows, and still filters styles', async () => {
    const { stdout } = await run(process.execPath, ['-e', SANITIZE_PROBE], { timeout: 30_000 });
    expect(JSON.parse(stdout.trim())).toEqual({
      before: false,
      plain: '<p>x</p>',
      afterPlain: false,
      styled: '<span style="color:red">x</span>',
      after: true,
    });
  });
});
