// The pieces of the `pds` CLI that need no service: reading URL inputs (files of lines with
// comments, JSON arrays, stdin, bare URLs, refusals) and the plain progress lines written when
// stdout is not a terminal. The CLI against a running service: test/e2e/cli.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { WaitProgress } from '../../client';

// An extensionless '../../bin/pds' would resolve to bin/pds.mjs (the npx shim, which runs the CLI
// on import) before bin/pds.ts, so the module is named with its extension, through a variable.
const CLI_MODULE = '../../bin/pds.ts';
const { EXIT, main, progressLine, readUrlInputs }: typeof import('../../bin/pds') = await import(CLI_MODULE);

const dir = mkdtempSync(join(tmpdir(), 'pds-cli-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('readUrlInputs', () => {
  it('reads files of lines (blank lines and # comments skipped, CRLF too), JSON arrays, stdin and bare URLs in order', () => {
    const lines = file('a.txt', '# shop A\r\nhttps://a.test/p/1\r\n\r\n  https://a.test/p/2  \n# end\n');
    const json = file('b.json', ' ["https://b.test/p/1", "b.test/p/2"] ');
    const urls = readUrlInputs([lines, 'https://c.test/p/1', json, '-', 'd.test/p/9'], () => 'https://e.test/p/1\n');
    expect(urls).toEqual([
      'https://a.test/p/1',
      'https://a.test/p/2',
      'https://c.test/p/1',
      'https://b.test/p/1',
      'b.test/p/2',
      'https://e.test/p/1',
      'd.test/p/9',
    ]);
  });

  it('refuses a missing file, bad JSON, a JSON array of non-strings, an empty input and too many URLs', () => {
    expect(() => readUrlInputs([join(dir, 'missing.txt')])).toThrow(/no such file/);
    expect(() => readUrlInputs([file('bad.json', '["https://a.test/p/1",')])).toThrow(/not valid JSON/);
    expect(() => readUrlInputs([file('objects.json', '[{"url": "https://a.test"}]')])).toThrow(/array of URL strings/);
    expect(() => readUrlInputs([file('empty.txt', '\n# nothing\n')])).toThrow(/no URLs given/);
    const many = file('many.txt', Array.from({ length: 50_001 }, (_, i) => `https://a.test/p/${i}`).join('\n'));
    expect(() => readUrlInputs([many])).toThrow(/50001 URLs: at most 50000/);
  });
});

describe('progressLine', () => {
  const base = { executionId: 'extract-urls-1', polls: 3, body: null } as const;

  it('extractions: processed/total, percent, rate and ETA; the crawl an extraction waits for', () => {
    const p: WaitProgress = {
      ...base,
      kind: 'extract',
      status: 'running',
      processed: 30,
      total: 120,
      elapsedMs: 10_000,
    };
    expect(progressLine(p)).toBe('pds: extract-urls-1 running, 30/120 URLs (25%), 3.0 URLs/s, ETA 30s');
    const waiting: WaitProgress = {
      ...base,
      kind: 'extract',
      status: 'pending',
      processed: 0,
      total: null,
      waitingFor: 'crawl-shop-test-0123456789ab',
      elapsedMs: 4000,
    };
    expect(progressLine(waiting)).toBe(
      'pds: extract-urls-1 pending, waiting for crawl crawl-shop-test-0123456789ab, 0/? URLs, 0.0 URLs/s, ETA -',
    );
    const done: WaitProgress = {
      ...base,
      kind: 'extract',
      status: 'completed',
      processed: 4,
      total: 4,
      elapsedMs: 2000,
    };
    expect(progressLine(done)).toBe('pds: extract-urls-1 completed, 4/4 URLs (100%), 2.0 URLs/s, ETA 0s');
  });

  it('crawls: the running step of four and the listings found; agentic: the step and candidates', () => {
    const crawl: WaitProgress = {
      ...base,
      executionId: 'crawl-1',
      kind: 'crawl',
      status: 'running',
      processed: 1200,
      total: null,
      step: 'Extracting listings',
      stepsDone: 3,
      stepsTotal: 4,
      elapsedMs: 60_000,
    };
    expect(progressLine(crawl)).toBe(
      'pds: crawl-1 running, step 4/4 Extracting listings, 1200 listings found, 20 listings/s',
    );
    const agentic: WaitProgress = {
      ...base,
      executionId: 'agentic-1',
      kind: 'agentic',
      status: 'running',
      processed: 3,
      total: 8,
      step: 'verifying',
      elapsedMs: 1000,
    };
    expect(progressLine(agentic)).toBe(
      'pds: agentic-1 running, step verifying, 3/8 candidates (37%), 3.0 candidates/s, ETA 2s',
    );
  });

  it('long ETAs read in minutes and hours', () => {
    const slow: WaitProgress = {
      ...base,
      kind: 'extract',
      status: 'running',
      processed: 1,
      total: 10_000,
      elapsedMs: 10_000,
    };
    expect(progressLine(slow)).toMatch(/ETA 27h46m$/);
  });
});

describe('main (no service needed)', () => {
  it('exit codes of usage errors and help, without sending anything', async () => {
    expect(EXIT).toMatchObject({
      ok: 0,
      someUrlsFailed: 1,
      usage: 2,
      auth: 3,
      jobFailed: 4,
      timeout: 5,
      unreachable: 6,
    });
    const stderr = process.stderr.write;
    const stdout = process.stdout.write;
    const written: string[] = [];
    process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
    process.stdout.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stdout.write;
    try {
      expect(await main(['crawl'])).toBe(EXIT.usage);
      expect(await main(['extract'])).toBe(EXIT.usage);
      expect(await main(['search', '   ', '--api-key', 'k'])).toBe(EXIT.usage);
      expect(await main(['extract', 'https://a.test/p', '--poll-interval', '0'])).toBe(EXIT.usage);
      expect(await main(['crawl', 'a.test', '--webhook-events', 'done'])).toBe(EXIT.usage);
      expect(await main(['wait', 'extract-urls-1', 'crawl-2', '--api-key', 'k'])).toBe(EXIT.usage);
      expect(await main(['--help'])).toBe(EXIT.ok);
    } finally {
      process.stderr.write = stderr;
      process.stdout.write = stdout;
    }
    expect(written.join('')).toContain("missing required argument 'vendor'");
    expect(written.join('')).toContain('several ids are followed together only for extractions');
  });
});
