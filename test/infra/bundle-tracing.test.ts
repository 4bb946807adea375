// Tracing in a Lambda asset works as unbundled: the probe (fixtures/tracing-entry.ts: an invocation
// traced as the pipeline and workers trace theirs) runs in a fresh process as on Lambda
// (LAMBDA_TASK_ROOT, _X_AMZN_TRACE_ID, AWS_XRAY_DAEMON_ADDRESS on a loopback UDP socket), once
// bundled by lib/bundle.ts (the X-Ray SDK's centralized sampler, EC2/ECS/Beanstalk plugins and SDK v2
// patcher are throwing twins there: lib/bundle-worker.mjs xray-unreached) and once under tsx; the
// subsegments each sends to the daemon are the same (names, annotations, HTTP data, fault, parent).
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFunction } from '../../lib/bundle';

const run = promisify(execFile);
const PROBE = path.join(__dirname, 'fixtures', 'tracing-entry.ts');
const TRACE_ROOT = '1-5759e988-bd862e3fe1be46a994272793';
const LAMBDA_PARENT = '53995c3f42cd8ad8';

const work = mkdtempSync(path.join(tmpdir(), 'pds-bundle-tracing-'));
let daemon: dgram.Socket;
let server: http.Server;
const datagrams: string[] = [];

beforeAll(async () => {
  daemon = dgram.createSocket('udp4');
  daemon.on('message', (message) => datagrams.push(message.toString('utf8')));
  await new Promise<void>((done) => daemon.bind(0, '127.0.0.1', done));
  server = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
});
afterAll(async () => {
  daemon.close();
  await new Promise((done) => server.close(done));
  rmSync(work, { recursive: true, force: true });
});

interface Subsegment {
  id: string;
  name: string;
  parent_id: string;
  trace_id: string;
  annotations?: Record<string, unknown>;
  http?: unknown;
  fault?: boolean;
  cause?: { exceptions: Array<{ message: string; type: string }> };
}

/** Runs the probe as on Lambda; the subsegments it sent, ids and clock readings replaced by what they point at. */
async function traceOf(module: string, loader: string[]): Promise<unknown[]> {
  datagrams.length = 0;
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/page`;
  const script = `const m = await import(${JSON.stringify(module)}); console.log(JSON.stringify(await m.handler(process.argv[1])));`;
  const { stdout } = await run(process.execPath, [...loader, '--input-type=module', '-e', script, url], {
    timeout: 120_000,
    env: {
      PATH: process.env.PATH ?? '',
      LAMBDA_TASK_ROOT: '/var/task',
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      AWS_REGION: 'us-east-1',
      _X_AMZN_TRACE_ID: `Root=${TRACE_ROOT};Parent=${LAMBDA_PARENT};Sampled=1`,
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(daemon.address() as AddressInfo).port}`,
      AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
    },
  });
  expect(JSON.parse(stdout.trim().split('\n').pop()!)).toBe('step failed');
  // UDP on loopback: the datagrams are in once the process has sent them; wait for the three (bounded).
  for (let i = 0; i < 50 && datagrams.length < 3; i++) await new Promise((done) => setTimeout(done, 20));
  const subsegments = datagrams.map((datagram) => {
    const [header, body] = datagram.split('\n');
    expect(JSON.parse(header!)).toEqual({ format: 'json', version: 1 });
    return JSON.parse(body!) as Subsegment;
  });
  const names = new Map(subsegments.map((s) => [s.id, s.name]));
  return subsegments
    .map((s) => ({
      name: s.name,
      parent: s.parent_id === LAMBDA_PARENT ? 'the Lambda segment' : names.get(s.parent_id),
      trace_id: s.trace_id,
      annotations: s.annotations,
      http: s.http,
      fault: s.fault,
      exceptions: s.cause?.exceptions.map((e) => ({ message: e.message, type: e.type })),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

describe('tracing in a Lambda asset', () => {
  it('sends the same subsegments to the X-Ray daemon bundled as unbundled', async () => {
    const outdir = path.join(work, 'tracing');
    const { metafile } = bundleFunction(PROBE, outdir);
    const inputs = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    // The tracer is in the asset, its Lambda-unreached parts as twins.
    expect(inputs.some((input) => input.includes('aws-xray-sdk-core/dist/lib/patchers/aws3_p.js'))).toBe(true);
    for (const twin of ['sampling/service_connector.js', 'sampling/rule_poller.js', 'plugins/ec2_plugin.js'])
      expect(
        inputs.some((input) => input.includes(twin) && !input.startsWith('xray-unreached:')),
        twin,
      ).toBe(false);
    const bundled = await traceOf(path.join(outdir, 'index.mjs'), []);
    const unbundled = await traceOf(PROBE, ['--import', 'tsx']);
    expect(bundled).toEqual(unbundled);
    expect(bundled.map((s) => (s as { name: string }).name)).toEqual(['## failing', '## probe', '127.0.0.1']);
    expect(bundled).toContainEqual(
      expect.objectContaining({
        name: '## probe',
        parent: 'the Lambda segment',
        trace_id: TRACE_ROOT,
        annotations: expect.objectContaining({
          operation: 'probe',
          execution_id: 'extract-urls-1',
          organization: 'org-a',
        }),
      }),
    );
    expect(bundled).toContainEqual(expect.objectContaining({ name: '127.0.0.1', parent: '## probe' }));
    expect(bundled).toContainEqual(
      expect.objectContaining({
        name: '## failing',
        fault: true,
        exceptions: [{ message: 'step failed', type: 'Error' }],
      }),
    );
  }, 300_000);
});
