import ts from 'typescript';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
const roots = process.argv.slice(2);
function* walk(d){ for (const f of readdirSync(d)) { const p=join(d,f); if (statSync(p).isDirectory()) yield* walk(p); else if (/\.(ts|mts|mjs|js)$/.test(p) && !p.endsWith('.d.ts')) yield p; } }
for (const r of roots) for (const file of walk(r)) {
  const src = ts.createSourceFile(file, readFileSync(file,'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (n) => {
    if (ts.isFunctionLike(n) && n.body) {
      const lines = (node) => src.getLineAndCharacterOfPosition(node.getEnd()).line - src.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      let own = lines(n.body);
      const sub = (m) => { if (m !== n && ts.isFunctionLike(m) && m.body) { own -= lines(m) ; return; } ts.forEachChild(m, sub); };
      ts.forEachChild(n.body, sub);
      if (own > 100) console.log(own, file, src.getLineAndCharacterOfPosition(n.getStart()).line+1, n.name?.getText?.() ?? '');
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
}
