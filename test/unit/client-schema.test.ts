// The committed client types (client/schema.d.ts) are what the current contracts generate: a
// contract change without `npm run client:generate` fails here.
import { describe, expect, it } from 'vitest';
import { committedSchemaSource, generateSchemaSource } from '../../client/generate';

describe('client/schema.d.ts', () => {
  it('matches the types generated from the current OpenAPI document (else run `npm run client:generate`)', async () => {
    const generated = await generateSchemaSource();
    expect(generated).toContain("'/v2/extract/{execution_id}'");
    const committed = committedSchemaSource();
    // A short message instead of a 200 kB diff: the first differing line.
    if (committed !== generated) {
      const a = committed.split('\n');
      const b = generated.split('\n');
      const line = a.findIndex((text, i) => text !== b[i]);
      expect.fail(
        `client/schema.d.ts is stale at line ${line + 1} (committed: ${JSON.stringify(a[line])}, generated: ${JSON.stringify(b[line])}): run \`npm run client:generate\``,
      );
    }
  });
});
