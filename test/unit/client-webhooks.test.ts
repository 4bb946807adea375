// receiveWebhook (client/webhooks.ts) against deliveries signed the way the service signs them
// (deliveryHeaders of lambdas/domain/webhooks/model.ts): a good delivery is read as the typed
// event; another secret, a changed body, an old or missing timestamp, or an event header that
// disagrees with the body is refused.
import { describe, expect, it } from 'vitest';
import { receiveWebhook, WebhookSignatureError } from '../../client/webhooks';
import { deliveryHeaders } from '../../lambdas/domain/webhooks/model';

const SECRET = `whsec_${'ab'.repeat(32)}`;
const AT = new Date('2026-11-24T01:00:00.000Z');
const event = {
  id: 'dlv_0001',
  event: 'completed' as const,
  created_at: AT.toISOString(),
  data: {
    execution_id: 'extract-urls-00000000-0000-4000-8000-000000000000',
    kind: 'extract-urls' as const,
    status: 'completed' as const,
    error: null,
    created_at: AT.toISOString(),
    start_date: AT.toISOString(),
    stop_date: AT.toISOString(),
    counts: { requested: 2, successful: 2, failed: 0, invalid: 0, pending: 0 },
  },
  metadata: { order: 42 },
};
const body = JSON.stringify(event);
const headers = deliveryHeaders({ delivery_id: 'dlv_0001', event: 'completed', attempt: 1, body }, SECRET, AT);

describe('receiveWebhook', () => {
  it('reads a delivery signed by the service, from a Headers object or a Node header record', () => {
    const now = { nowMs: AT.getTime() + 5_000 };
    const fromRecord = receiveWebhook(SECRET, headers, body, now);
    expect(fromRecord).toEqual({ deliveryId: 'dlv_0001', event });
    expect(receiveWebhook(SECRET, new Headers(headers), body, now).event.data.counts).toEqual({
      requested: 2,
      successful: 2,
      failed: 0,
      invalid: 0,
      pending: 0,
    });
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), [v]]));
    expect(receiveWebhook(SECRET, upper, body, now).deliveryId).toBe('dlv_0001');
  });

  it('refuses another secret, a changed body, an old timestamp, a missing header and a mismatched event', () => {
    const now = { nowMs: AT.getTime() };
    expect(() => receiveWebhook(`whsec_${'cd'.repeat(32)}`, headers, body, now)).toThrow(WebhookSignatureError);
    expect(() => receiveWebhook(SECRET, headers, body.replace('"order":42', '"order":43'), now)).toThrow(
      /does not match/,
    );
    expect(() => receiveWebhook(SECRET, headers, body, { nowMs: AT.getTime() + 301_000 })).toThrow(/tolerance/);
    expect(
      receiveWebhook(SECRET, headers, body, { nowMs: AT.getTime() + 301_000, toleranceSeconds: 600 }).event.id,
    ).toBe('dlv_0001');
    const { 'x-pds-timestamp': _dropped, ...noTimestamp } = headers;
    expect(() => receiveWebhook(SECRET, noTimestamp, body, now)).toThrow(/missing X-PDS-Timestamp/);
    expect(() => receiveWebhook(SECRET, { ...headers, 'x-pds-event': 'failed' }, body, now)).toThrow(
      /X-PDS-Event does not match/,
    );
  });
});
