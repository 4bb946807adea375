// Regenerates FUNCTION_CAPABILITIES in lambdas/topology/capabilities.ts: for every Lambda, the
// least list of lazy capabilities its code can call (lib/capability-scan.ts).
// `npx tsx scripts/lazy-capabilities.ts`
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { functionKey } from '../lib/bundle';
import { deriveCapabilities } from '../lib/capability-scan';
import { lambdaEntries } from '../lib/lambda-entries';
import { projectLayout } from '../lib/source-layout';

const file = path.join(process.cwd(), 'lambdas', 'topology', 'capabilities.ts');
const work = mkdtempSync(path.join(tmpdir(), 'pds-capabilities-'));
const lines: string[] = [];
try {
  for (const { entry, operations } of lambdaEntries(projectLayout(process.cwd()))) {
    const key = functionKey(entry);
    const list = deriveCapabilities(entry, work, operations);
    console.log(key, list.join(', ') || '(none)');
    lines.push(`  '${key}': [${list.map((c) => `'${c}'`).join(', ')}],`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const source = readFileSync(file, 'utf8');
const updated = source.replace(
  /( *\/\/ GENERATED-START\n)[\s\S]*?( *\/\/ GENERATED-END)/,
  (_all, start: string, end: string) => `${start}${lines.join('\n')}\n${end}`,
);
writeFileSync(file, updated);
