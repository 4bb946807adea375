// Execution identifiers (DECISIONS, Identifiers). On AWS the Step Functions execution name equals
// the id, so it must also fit Step Functions' name rules: at most 80 characters of [A-Za-z0-9-_].
import { randomBytes, randomUUID } from 'node:crypto';
import type { ExecutionKind } from './model';

const MAX_ID_LENGTH = 80;

/** Dots become dashes; anything outside [a-z0-9-] too (hosts are already lower case). */
const slug = (host: string) =>
  host
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');

/** Keeps the id within the Step Functions name limit by shortening the vendor part only. */
function boundedId(prefix: string, subject: string, suffix: string): string {
  const room = MAX_ID_LENGTH - prefix.length - suffix.length - 2;
  const part = subject.length > room ? subject.slice(0, room).replace(/-$/, '') : subject;
  return `${prefix}-${part}-${suffix}`;
}

export function newExecutionId(kind: ExecutionKind, subject?: string): string {
  switch (kind) {
    case 'products-batch':
      return `products-batch-${randomUUID()}`;
    case 'extract-urls':
      return `extract-urls-${randomUUID()}`;
    case 'agentic':
      return `agentic-${randomUUID()}`;
    case 'extract-vendor': {
      if (!subject) throw new Error('extract-vendor ids need the vendor');
      return boundedId('extract', slug(subject), randomUUID());
    }
    case 'crawl': {
      if (!subject) throw new Error('crawl ids need the host');
      return boundedId('crawl', slug(subject), randomBytes(6).toString('hex'));
    }
  }
}

const SHAPES: Array<[ExecutionKind, RegExp]> = [
  ['products-batch', /^products-batch-[0-9a-f-]{36}$/],
  ['extract-urls', /^extract-urls-[0-9a-f-]{36}$/],
  ['agentic', /^agentic-[0-9a-f-]{36}$/],
  ['crawl', /^crawl-[a-z0-9-]+-[0-9a-f]{12}$/],
  ['extract-vendor', /^extract-[a-z0-9-]+-[0-9a-f-]{36}$/],
];

/** The kind an id was minted for, or null for a string that is not one of ours. */
export function kindOfExecutionId(id: string): ExecutionKind | null {
  if (typeof id !== 'string' || id.length > MAX_ID_LENGTH) return null;
  for (const [kind, shape] of SHAPES) if (shape.test(id)) return kind;
  return null;
}
