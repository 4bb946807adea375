// Pins the single table's key formats (the idea of ElectroDB's offline `.params()` tests): a
// change to a template shows up here as a reviewed diff, never silently in stored data.
import { describe, expect, it } from 'vitest';
import { SCHEMA, urlIndexPart } from '../../lambdas/adapters/dynamodb/schema';
import { TABLE } from '../../lambdas/topology/table';

/** Every template part filled with its own name in capitals, so the snapshot shows the layout. */
function sample(template: string): Record<string, string> {
  return Object.fromEntries([...template.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name, name.toUpperCase()]));
}

function layout(entity: (typeof SCHEMA)[keyof typeof SCHEMA]) {
  const parts = { ...sample(entity.table.pk), ...sample(entity.table.sk) };
  const out: Record<string, unknown> = { table: entity.key(parts as never) };
  for (const name of ['gsi1', 'gsi2'] as const) {
    const index = entity[name] as
      | { template: { pk: string; sk: string }; keys(parts: Record<string, string>): unknown }
      | undefined;
    if (index) out[name] = index.keys({ ...sample(index.template.pk), ...sample(index.template.sk) });
  }
  return out;
}

describe('key schema', () => {
  it('declares every entity with its key layout', () => {
    const layouts = Object.fromEntries(Object.entries(SCHEMA).map(([name, entity]) => [name, layout(entity)]));
    expect(layouts).toMatchInlineSnapshot(`
      {
        "apiKey": {
          "gsi1": {
            "gsi1pk": "APIKEYS",
            "gsi1sk": "ORG#CREATEDAT#KEYID",
          },
          "gsi2": {
            "gsi2pk": "APIKEYID#KEYID",
            "gsi2sk": "APIKEY",
          },
          "table": {
            "pk": "APIKEY#KEYHASH",
            "sk": "APIKEY",
          },
        },
        "batchClaim": {
          "table": {
            "pk": "EXEC#EXECUTIONID",
            "sk": "BATCH#BATCHID",
          },
        },
        "catalogHead": {
          "table": {
            "pk": "CATALOG#VENDOR",
            "sk": "HEAD",
          },
        },
        "changeEntry": {
          "gsi2": {
            "gsi2pk": "CHANGES#VENDOR#SHARD",
            "gsi2sk": "SEENAT#LOG#SEQ",
          },
          "table": {
            "pk": "CHANGE#LOG",
            "sk": "SEQ#SEQ",
          },
        },
        "changeSubscription": {
          "gsi1": {
            "gsi1pk": "CHANGESUBS",
            "gsi1sk": "ID",
          },
          "table": {
            "pk": "ORG#ORG",
            "sk": "CHANGESUB#ID",
          },
        },
        "collection": {
          "table": {
            "pk": "LCOLL#VENDOR",
            "sk": "C#COLLECTION",
          },
        },
        "crawlMemberPage": {
          "table": {
            "pk": "EXEC#ID",
            "sk": "CRAWL#MEM#COLLECTION#SEQ#N",
          },
        },
        "crawlPage": {
          "table": {
            "pk": "EXEC#ID",
            "sk": "CRAWL#PAGE#SEQ#N",
          },
        },
        "crawlPlan": {
          "table": {
            "pk": "EXEC#ID",
            "sk": "CRAWL#PLAN",
          },
        },
        "crawlWaiter": {
          "table": {
            "pk": "EXEC#ID",
            "sk": "CRAWL#WAITER#EXECUTIONID",
          },
        },
        "developmentKeyClaim": {
          "table": {
            "pk": "SYSTEM",
            "sk": "DEVELOPMENT_KEY",
          },
        },
        "execution": {
          "gsi1": {
            "gsi1pk": "EXECS#ORG#GROUP",
            "gsi1sk": "CREATEDAT#ID",
          },
          "gsi2": {
            "gsi2pk": "EXECS#ORG#GROUP#STATUS",
            "gsi2sk": "CREATEDAT#ID",
          },
          "table": {
            "pk": "EXEC#ID",
            "sk": "EXEC",
          },
        },
        "executionDeadline": {
          "table": {
            "pk": "EXECS#ACTIVE#SHARD",
            "sk": "DEADLINE#ID",
          },
        },
        "hostGate": {
          "table": {
            "pk": "HOSTGATE#HOST",
            "sk": "GATE",
          },
        },
        "idempotencyRecord": {
          "table": {
            "pk": "IDEMPOTENCY#KEY",
            "sk": "IDEMPOTENCY",
          },
        },
        "listing": {
          "gsi2": {
            "gsi2pk": "LISTINGS#SHARD",
            "gsi2sk": "UPDATEDAT#URLHASH",
          },
          "table": {
            "pk": "LISTING#VENDOR",
            "sk": "U#URL",
          },
        },
        "listingAnchor": {
          "table": {
            "pk": "LANCHOR#VENDOR#SLOT#NAME",
            "sk": "A#K",
          },
        },
        "listingGone": {
          "gsi2": {
            "gsi2pk": "LISTINGS#SHARD",
            "gsi2sk": "UPDATEDAT#URLHASH",
          },
          "table": {
            "pk": "LISTINGGONE#VENDOR",
            "sk": "U#URLHASH",
          },
        },
        "listingMemberChunk": {
          "table": {
            "pk": "LMEMBERS#VENDOR#SLOT#COLLECTION",
            "sk": "A#K",
          },
        },
        "organization": {
          "table": {
            "pk": "ORG#ORG",
            "sk": "ORG",
          },
        },
        "product": {
          "gsi1": {
            "gsi1pk": "PRODUCTS#VENDOR",
            "gsi1sk": "UPDATEDAT#URLHASH#COUNTRY",
          },
          "gsi2": {
            "gsi2pk": "PRODUCTS#SHARD",
            "gsi2sk": "UPDATEDAT#URLHASH#COUNTRY",
          },
          "table": {
            "pk": "PRODUCT#URLHASH",
            "sk": "COUNTRY#COUNTRY",
          },
        },
        "productFirstSeen": {
          "table": {
            "pk": "PRODUCT#URLHASH",
            "sk": "FIRST_SEEN",
          },
        },
        "rateBucket": {
          "table": {
            "pk": "RATE#BUCKETID",
            "sk": "RATE",
          },
        },
        "urlEntry": {
          "table": {
            "pk": "EXEC#EXECUTIONID",
            "sk": "URL#INDEX",
          },
        },
        "urlPlan": {
          "table": {
            "pk": "EXEC#EXECUTIONID",
            "sk": "PLAN#CHUNK",
          },
        },
        "usageCounter": {
          "table": {
            "pk": "USAGE#ORG",
            "sk": "H#HOUR#PATH",
          },
        },
        "vendor": {
          "gsi1": {
            "gsi1pk": "VENDORS",
            "gsi1sk": "VENDOR",
          },
          "table": {
            "pk": "VENDOR#VENDOR",
            "sk": "VENDOR",
          },
        },
        "vendorAccess": {
          "table": {
            "pk": "ORG#ORG",
            "sk": "CHANGEVENDOR#VENDOR",
          },
        },
        "webhookDelivery": {
          "gsi2": {
            "gsi2pk": "WEBHOOKS#UNSETTLED#SHARD",
            "gsi2sk": "CREATEDAT#DELIVERYID",
          },
          "table": {
            "pk": "WEBHOOK#EXECUTIONID",
            "sk": "DELIVERY#DELIVERYID",
          },
        },
        "webhookSecret": {
          "table": {
            "pk": "ORG#ORG",
            "sk": "WEBHOOK#SECRET",
          },
        },
        "webhookSubscription": {
          "table": {
            "pk": "WEBHOOK#EXECUTIONID",
            "sk": "SUB",
          },
        },
      }
    `);
  });

  it('uses only the table and indexes the stack creates', () => {
    const indexes = new Set(TABLE.indexes.map((index) => index.name));
    for (const [name, entity] of Object.entries(SCHEMA)) {
      for (const index of ['gsi1', 'gsi2'] as const) if (entity[index]) expect(indexes.has(index), name).toBe(true);
      expect(entity.access.length, `${name} names its access patterns`).toBeGreaterThan(0);
      expect(entity.entity).toBe(name);
    }
  });

  it('refuses a key with a missing or empty part', () => {
    expect(() => SCHEMA.execution.key({ id: '' })).toThrow(/Key part "id"/);
    expect(() => SCHEMA.usageCounter.key({ org: 'o' } as never)).toThrow(/Key part "hour"/);
  });

  it('sorts URL entries by index', () => {
    const keys = [3, 25, 1_000_000, 120].map((i) => SCHEMA.urlEntry.sk({ index: urlIndexPart(i) }));
    expect([...keys].sort()).toEqual(
      [3, 25, 120, 1_000_000].map((i) => SCHEMA.urlEntry.sk({ index: urlIndexPart(i) })),
    );
  });

  it('keeps partitions of different entities apart', () => {
    const prefixes = Object.values(SCHEMA).map((entity) => `${entity.table.pk.split('{')[0]}|${entity.skPrefix}`);
    expect(new Set(prefixes).size).toBe(prefixes.length);
  });
});
