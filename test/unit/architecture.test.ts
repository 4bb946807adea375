// Guardrails that keep the structure without anyone remembering it: what each layer may import,
// where configuration is read, that request paths never Scan, and that no machine's paths leak
// into the code. Each rule reads the source files, so a crossing fails here with its location.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function sources(dir: string): string[] {
  const full = path.join(root, dir);
  const out: string[] = [];
  for (const name of readdirSync(full)) {
    const file = path.join(full, name);
    if (statSync(file).isDirectory()) out.push(...sources(path.join(dir, name)));
    else if (/\.(ts|mts|js)$/.test(name) && !name.endsWith('.d.ts')) out.push(path.join(dir, name));
  }
  return out;
}

/** Module specifiers of every import/export-from/dynamic import in a source text. */
function importsOf(text: string): string[] {
  return [
    ...text.matchAll(
      /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm,
    ),
  ].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** The repository folder an import resolves to (e.g. lambdas/adapters), or the package name. */
function target(file: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  return path
    .relative(root, path.resolve(path.dirname(path.join(root, file)), specifier))
    .split(path.sep)
    .join('/');
}

interface Violation {
  file: string;
  found: string;
}

/** Every import of `files` that `forbidden` matches (`read` gives a file's text). */
function crossings(
  files: string[],
  forbidden: (to: string) => boolean,
  read = (file: string) => readFileSync(path.join(root, file), 'utf8'),
): Violation[] {
  return files.flatMap((file) =>
    importsOf(read(file))
      .map((specifier) => ({ file, found: target(file, specifier) }))
      .filter((v) => forbidden(v.found)),
  );
}

const DOMAIN_FORBIDDEN = (to: string) =>
  /^lambdas\/(adapters|composition|local|http|workers|observability)(\/|$)/.test(to) ||
  to === 'lambdas/config' ||
  /^@aws-sdk\//.test(to) ||
  /^(got|aws-lambda|@middy\/)/.test(to);

const domain = sources('lambdas/domain');
const handlers = sources('lambdas/http');
const workers = sources('lambdas/workers');

describe('import boundaries', () => {
  it('the domain imports no adapter, composition, runtime, AWS SDK or config', () => {
    expect(crossings(domain, DOMAIN_FORBIDDEN)).toEqual([]);
  });

  it('the domain never reads process.env', () => {
    const readers = domain.filter((file) => /process\.env/.test(readFileSync(path.join(root, file), 'utf8')));
    expect(readers).toEqual([]);
  });

  it('handlers and workers reach adapters only through the container', () => {
    const forbidden = (to: string) =>
      /^lambdas\/adapters(\/|$)/.test(to) || /^@aws-sdk\//.test(to) || to === 'lambdas/config';
    expect(crossings([...handlers, ...workers], forbidden)).toEqual([]);
  });

  it('only lambdas/config.ts reads the environment among the Lambda code', () => {
    const readers = sources('lambdas')
      .filter((file) => !file.startsWith('lambdas/local/'))
      .filter((file) =>
        /process\.env\b/.test(readFileSync(path.join(root, file), 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '')),
      );
    expect(readers).toEqual(['lambdas/config.ts']);
  });

  it('notices a forbidden import in every form (the rule itself can fail)', () => {
    const text = [
      "import { keyItem } from '../../adapters/dynamodb/keys';",
      "import type { Config } from '../../config';",
      "export { x } from '../../composition/container';",
      "const sdk = await import('@aws-sdk/client-sqs');",
      "import { ok } from '../errors';",
    ].join('\n');
    const found = crossings(['lambdas/domain/x/y.ts'], DOMAIN_FORBIDDEN, () => text).map((v) => v.found);
    expect(found).toEqual([
      'lambdas/adapters/dynamodb/keys',
      'lambdas/config',
      'lambdas/composition/container',
      '@aws-sdk/client-sqs',
    ]);
  });
});

/**
 * Every module a source file names, read from its syntax tree: import and export declarations
 * (type-only ones included), `import x = require()`, dynamic `import()`, `require()` and
 * `import('...').Type` type references. Comments and strings are not imports.
 */
function moduleReferences(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const literal = (node: ts.Node | undefined) => {
    if (node && ts.isStringLiteralLike(node)) found.push(node.text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) literal(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      literal(node.moduleReference.expression);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) literal(node.argument.literal);
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    )
      literal(node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** AWS SDK packages: v3 clients and libraries, their smithy runtime, and v2. */
const isAwsSdk = (specifier: string) => /^(@aws-sdk|@smithy)\//.test(specifier) || specifier === 'aws-sdk';

describe('the composition layer', () => {
  it('imports no AWS SDK package, types included (adapters and the local runtime build the clients)', () => {
    const found = sources('lambdas/composition').flatMap((file) =>
      moduleReferences(file, readFileSync(path.join(root, file), 'utf8'))
        .filter(isAwsSdk)
        .map((specifier) => `${file}: ${specifier}`),
    );
    expect(found).toEqual([]);
  });

  it('reads every form of module reference from the syntax tree (the rule itself can fail)', () => {
    const text = [
      '// a comment naming @aws-sdk/client-sfn is not an import',
      "const note = 'nor is a string: @aws-sdk/client-sqs';",
      "import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';",
      "import { S3Client } from '@aws-sdk/client-s3';",
      "export type { SQSClient } from '@aws-sdk/client-sqs';",
      "import sfn = require('@aws-sdk/client-sfn');",
      "const lazy = () => import('@smithy/types');",
      "let client: import('@aws-sdk/client-dynamodb').DynamoDBClient;",
      "const v2 = require('aws-sdk');",
      "import { capability } from './container';",
    ].join('\n');
    expect(moduleReferences('x.ts', text).filter(isAwsSdk)).toEqual([
      '@aws-sdk/lib-dynamodb',
      '@aws-sdk/client-s3',
      '@aws-sdk/client-sqs',
      '@aws-sdk/client-sfn',
      '@smithy/types',
      '@aws-sdk/client-dynamodb',
      'aws-sdk',
    ]);
  });
});

describe('the CDK code', () => {
  it('imports nothing of lambdas/ but the topology tables (no business logic in lib/)', () => {
    const files = [...sources('lib'), 'bin/app.ts'];
    expect(crossings(files, (to) => /^lambdas\//.test(to) && !/^lambdas\/topology\//.test(to))).toEqual([]);
  });
});

/** Functions whose own body (nested functions counted apart) is longer than `limit` lines. */
function longFunctions(file: string, text: string, limit = 100): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines = (node: ts.Node) =>
    source.getLineAndCharacterOfPosition(node.getEnd()).line -
    source.getLineAndCharacterOfPosition(node.getStart()).line +
    1;
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      let own = lines(node.body);
      const nested = (inner: ts.Node): void => {
        if (ts.isFunctionLike(inner) && 'body' in inner && inner.body) own -= lines(inner);
        else ts.forEachChild(inner, nested);
      };
      ts.forEachChild(node.body, nested);
      const at = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      if (own > limit) found.push(`${file}:${at} (${own} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function size', () => {
  it('no function in lambdas/, lib/ or bin/ has more than 100 lines of its own', () => {
    const files = [...sources('lambdas'), ...sources('lib'), ...sources('bin')];
    expect(files.flatMap((file) => longFunctions(file, readFileSync(path.join(root, file), 'utf8')))).toEqual([]);
  });

  it('counts the own lines of a function, nested functions apart (the rule itself can fail)', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const long = `function long() {\n${body(101)}\n}`;
    const nested = `function outer() {\n${body(60)}\n  const inner = () => {\n${body(60)}\n  };\n}`;
    expect(longFunctions('x.ts', long)).toEqual(['x.ts:1 (103 lines)']);
    expect(longFunctions('x.ts', nested)).toEqual([]);
  });
});

describe('table access', () => {
  // Maintenance code may scan (key administration, migrations); request paths query declared keys.
  const MAINTENANCE = new Set<string>(['bin/keys.ts']);

  it('no Scan outside maintenance code', () => {
    const scanners = [...sources('lambdas'), ...sources('bin')].filter(
      (file) =>
        !MAINTENANCE.has(file) &&
        /\bScan(Command|Input)\b|new\s+Scan\b|\.scan\(/.test(readFileSync(path.join(root, file), 'utf8')),
    );
    expect(scanners).toEqual([]);
  });
});

describe('portability', () => {
  it('no path of a particular machine in code, tests or docs', () => {
    const files = [...sources('lambdas'), ...sources('lib'), ...sources('bin'), ...sources('test'), 'README.md'];
    const pinned = files.filter(
      (file) =>
        file !== 'test/unit/architecture.test.ts' &&
        /['"`(\s](\/work\/\w|\/root\/\w|\/home\/\w+\/|\/Users\/\w+\/|[A-Z]:\\\\\w)/.test(
          readFileSync(path.join(root, file), 'utf8'),
        ),
    );
    expect(pinned).toEqual([]);
  });
});
