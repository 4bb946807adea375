#!/usr/bin/env node
// `npx pds ...` from a checkout after `npm install`: registers tsx's loader, then runs the CLI
// written in TypeScript (bin/pds.ts). No build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./pds.ts');
process.exitCode = await main(process.argv.slice(2));
