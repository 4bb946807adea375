// API keys and organizations. Keys are stored only as SHA-256 hashes: the clear key is shown
// once, at creation, and never again.
import { createHash, randomBytes } from 'node:crypto';
import type { Scope } from '../../topology/routes';

export const ALL_SCOPES: readonly Scope[] = ['search', 'catalog', 'extract', 'crawl', 'affiliate', 'usage'];
/** Shorter keys are guessable; the bootstrap format and the CLI both refuse them. */
export const MIN_KEY_LENGTH = 16;

export interface ApiKeyRecord {
  keyId: string;
  keyHash: string;
  org: string;
  scopes: Scope[];
  createdAt: string;
  revokedAt?: string;
}

export interface Organization {
  org: string;
  createdAt: string;
  /** Per-organization override of the default token bucket. */
  rateLimit?: { ratePerSecond: number; burst: number };
}

export const hashKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** A fresh random key: 32 bytes of entropy, URL-safe, recognisable by its prefix. */
export const generateKey = (): string => `pds_${randomBytes(32).toString('base64url')}`;

export const generateKeyId = (): string => `key_${randomBytes(8).toString('hex')}`;

const ORG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function checkOrgName(org: string): string | null {
  return ORG_PATTERN.test(org)
    ? null
    : `organization "${org}" must be 1-64 characters of letters, digits, ".", "_" or "-"`;
}

export function checkKey(key: string): string | null {
  if (key.length < MIN_KEY_LENGTH) return `API keys must be at least ${MIN_KEY_LENGTH} characters`;
  if (!/^[\x21-\x7e]+$/.test(key)) return 'API keys must be printable ASCII without spaces';
  return null;
}

/** Parses "a,b" / "a+b" scope lists; empty or missing means all six. */
export function parseScopes(raw: string | undefined | null): Scope[] {
  if (!raw?.trim()) return [...ALL_SCOPES];
  const wanted = raw
    .split(/[+,\s]+/)
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = wanted.filter((s) => !(ALL_SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new Error(`Unknown scope(s): ${unknown.join(', ')} (known: ${ALL_SCOPES.join(', ')})`);
  return ALL_SCOPES.filter((s) => wanted.includes(s));
}

export interface BootstrapEntry {
  key: string;
  org: string;
  scopes: Scope[];
}

/** PDS_BOOTSTRAP_KEYS="<key>:<org>[:<scope>+<scope>],...". Throws with the offending entry named. */
export function parseBootstrapSpec(spec: string | undefined): BootstrapEntry[] {
  if (!spec?.trim()) return [];
  return spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry, index) => {
      const [key, org, scopes, ...rest] = entry.split(':');
      const where = `PDS_BOOTSTRAP_KEYS entry ${index + 1}`;
      if (!key || !org || rest.length) throw new Error(`${where}: expected <key>:<org>[:<scope>+<scope>]`);
      const keyProblem = checkKey(key);
      if (keyProblem) throw new Error(`${where}: ${keyProblem}`);
      const orgProblem = checkOrgName(org);
      if (orgProblem) throw new Error(`${where}: ${orgProblem}`);
      return { key, org, scopes: parseScopes(scopes) };
    });
}
