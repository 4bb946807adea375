// One worker process of test/integration/host-gate-processes.test.ts: the production composition
// (a container over the shared table, its fetcher and host gate), as a Lambda builds it, fetching
// the URLs given on the command line at once, when told "go" on stdin (so the processes overlap),
// and printing one JSON line of outcomes. The test bundles it once with esbuild and runs the bundle
// with plain Node in each process.
import '../../lambdas/local/polyfills';
import { loadConfig } from '../../lambdas/config';
import { createContainer } from '../../lambdas/composition/container';
import { fetcherOf } from '../../lambdas/composition/fetcher';

const urls: string[] = JSON.parse(process.argv[2] ?? '[]');
const container = createContainer(loadConfig(process.env));
const fetcher = fetcherOf(container);
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.destroy();
const outcomes = await Promise.all(
  urls.map((url) =>
    fetcher.fetch({ url }).then(
      (page) => ({ url, status: page.status }),
      (error: Error & { kind?: string }) => ({ url, error: `${error.kind ?? error.name}: ${error.message}` }),
    ),
  ),
);
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
container.dispose();
