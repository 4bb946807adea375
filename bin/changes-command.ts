// `pds changes`: the organization's change feed (GET /v2/changes) page by page from a cursor or a
// time, one line per change (--json: one JSON object per line); the cursor to resume from goes to
// stderr. `--follow` keeps reading new changes (Ctrl-C stops) instead of stopping at the end.
import { type PdsClient, unwrap } from '../client';

/** Pages at most in one run without --follow. */
const MAX_PAGES = 1_000;
const FOLLOW_INTERVAL_MS = 5_000;

interface ChangesFlags {
  [option: string]: unknown;
  vendor?: string;
  since?: string;
  types?: string;
  cursor?: string;
  follow?: boolean;
}

interface ChangesIo {
  json: boolean;
  out(text: string): void;
  err(text: string): void;
}

interface Change {
  id: string;
  type: string;
  url: string;
  source: string;
  variant: { id: string; sku: string | null; title: string | null } | null;
  old_value: number | boolean | null;
  new_value: number | boolean | null;
  currency: string | null;
  seen_at: string;
}

/** `2026-05-01T10:00:00.000Z price https://... [variant 42] 19.99 -> 14.99 EUR (extraction)` */
export function changeLine(change: Change): string {
  const variant = change.variant ? ` [variant ${change.variant.sku ?? change.variant.id}]` : '';
  const values =
    change.type === 'listing_added' || change.type === 'listing_removed'
      ? ''
      : ` ${String(change.old_value)} -> ${String(change.new_value)}${change.currency && change.type !== 'availability' ? ` ${change.currency}` : ''}`;
  return `${change.seen_at} ${change.type} ${change.url}${variant}${values} (${change.source})`;
}

export async function changesCommand(
  client: PdsClient,
  io: ChangesIo,
  flags: ChangesFlags,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<number> {
  let cursor = flags.cursor;
  let count = 0;
  for (let n = 0; flags.follow || n < MAX_PAGES; n++) {
    const page = unwrap(
      await client.api.GET('/v2/changes', {
        params: {
          query: {
            ...(flags.vendor ? { vendor: flags.vendor } : {}),
            ...(flags.since ? { since: flags.since } : {}),
            ...(flags.types ? { types: flags.types } : {}),
            ...(cursor ? { cursor } : {}),
            page_size: 500,
          },
        },
      }),
      'GET /v2/changes',
    );
    for (const change of page.data as Change[]) io.out(io.json ? JSON.stringify(change) : changeLine(change));
    count += page.data.length;
    cursor = page.pagination.next_cursor;
    if (!page.pagination.has_next) {
      if (!flags.follow) break;
      await sleep(FOLLOW_INTERVAL_MS);
    }
  }
  io.err(`${count} changes; resume with --cursor ${cursor}`);
  return 0;
}
