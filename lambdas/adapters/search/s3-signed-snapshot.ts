// Index snapshots in S3 (AWS) over signed HTTPS requests: the indexer Lambda writes one object;
// search Lambdas read it at cold start and catch up from the table's change feed since the
// snapshot's cursor. One GET and one PUT of one object need no S3 client: its schemas, XML serde,
// checksum and S3-specific middleware were ~170 KB of every search function's asset (issue 12: every
// asset under 1 MB). Requests are signed with SigV4 (@smithy/signature-v4, which every asset holds
// already for DynamoDB, hashing with the SDK's own node:crypto SHA-256) and sent with Node's fetch; S3's errors come back as their XML Code.
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { SnapshotStore } from '../../ports/search-index';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface S3SignedSnapshotOptions {
  region: string;
  bucket: string;
  key: string;
  /** The credentials' provider (the container's AWS clients' own, so one chain and one cache). */
  credentials: () => Promise<AwsCredentials>;
  /** Another S3 endpoint (path-style requests), e.g. a loopback test server; default: S3 in `region`. */
  endpoint?: string;
}

/** Attempts per request: S3's 5xx and throttling answers and network errors are retried, with backoff. */
const ATTEMPTS = 3;
const BACKOFF_MS = 100;
/** A snapshot is a few MB: well under this per attempt. */
const ATTEMPT_TIMEOUT_MS = 30_000;

/** Virtual-hosted-style for a DNS-safe bucket name without dots (S3's recommendation), path-style otherwise or on another endpoint. */
export function snapshotUrl(options: Pick<S3SignedSnapshotOptions, 'region' | 'bucket' | 'key' | 'endpoint'>): URL {
  const key = options.key.split('/').map(encodeURIComponent).join('/');
  if (options.endpoint) return new URL(`${options.endpoint.replace(/\/$/, '')}/${options.bucket}/${key}`);
  if (/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(options.bucket))
    return new URL(`https://${options.bucket}.s3.${options.region}.amazonaws.com/${key}`);
  return new URL(`https://s3.${options.region}.amazonaws.com/${options.bucket}/${key}`);
}

/** An S3 error answer: its XML Code as the error's name (`NoSuchKey`, `AccessDenied`, ...). */
export class S3RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`S3 ${status} ${code}: ${message}`);
    this.name = code;
  }
}

const retryable = (status: number) => status >= 500 || status === 429;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export function s3SignedSnapshotStore(options: S3SignedSnapshotOptions): SnapshotStore {
  const signer = new SignatureV4({
    service: 's3',
    region: options.region,
    credentials: options.credentials,
    sha256: Sha256,
    // S3 signs the path as sent (no second escaping), and wants the payload's hash in a header.
    uriEscapePath: false,
    applyChecksum: true,
  });
  const url = snapshotUrl(options);

  async function send(method: 'GET' | 'PUT', body?: Buffer, contentType?: string): Promise<Response> {
    const headers: Record<string, string> = { host: url.host };
    if (body) {
      headers['content-length'] = String(body.length);
      if (contentType) headers['content-type'] = contentType;
    }
    for (let attempt = 1; ; attempt++) {
      const signed = await signer.sign({
        method,
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port ? Number(url.port) : undefined,
        path: url.pathname,
        query: {},
        headers: { ...headers },
        body,
      });
      const { host: _host, ...sent } = signed.headers as Record<string, string>;
      try {
        const response = await fetch(url, {
          method,
          headers: sent,
          body: body ? new Uint8Array(body) : undefined,
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        if (!retryable(response.status) || attempt === ATTEMPTS) return response;
        await response.arrayBuffer(); // drain before retrying
      } catch (error) {
        if (attempt === ATTEMPTS) throw error;
      }
      await sleep(BACKOFF_MS * 2 ** (attempt - 1));
    }
  }

  async function failure(response: Response): Promise<S3RequestError> {
    const text = await response.text();
    const code = /<Code>([^<]{1,200})<\/Code>/.exec(text)?.[1] ?? `Http${response.status}`;
    const message = /<Message>([^<]{1,1000})<\/Message>/.exec(text)?.[1] ?? response.statusText;
    return new S3RequestError(response.status, code, message);
  }

  return {
    async load() {
      const response = await send('GET');
      if (response.ok) return Buffer.from(await response.arrayBuffer());
      const error = await failure(response);
      // No snapshot yet: the index builds from the table.
      if (error.code === 'NoSuchKey') return null;
      throw error;
    },
    async save(data) {
      const response = await send('PUT', data, 'application/gzip');
      if (!response.ok) throw await failure(response);
      await response.arrayBuffer();
    },
  };
}
