// Shops publish JSON-LD that strict JSON.parse rejects: `//` and `/* */` comments (Google's own
// samples), trailing commas, raw newlines inside strings, HTML comments or CDATA around the
// block, HTML-escaped quotes. Repair those and parse; null when it is beyond repair.

const ENTITY: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'", '#39': "'", '#34': '"' };

function decodeBasicEntities(text: string): string {
  return text.replace(/&(quot|amp|lt|gt|apos|#39|#34);/g, (_, name: string) => ENTITY[name] ?? _);
}

/** Removes comments and trailing commas outside strings, escapes raw control characters inside them. */
export function repairJson(text: string): string {
  let out = '';
  let inString = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') {
        out += c + (text[i + 1] ?? '');
        i++;
      } else if (c === '"') {
        inString = false;
        out += c;
      } else if (c === '\n') out += '\\n';
      else if (c === '\r') out += '\\r';
      else if (c === '\t') out += '\\t';
      else if (c < ' ') out += ' ';
      else out += c;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 1;
    } else if (c === ',') {
      // Drop the comma when the next meaningful character closes the container.
      let j = i + 1;
      while (j < n && /\s/.test(text[j])) j++;
      if (text[j] === '}' || text[j] === ']') continue;
      out += c;
    } else out += c;
  }
  return out;
}

function stripWrappers(text: string): string {
  return text
    .trim()
    .replace(/^<!--/, '')
    .replace(/-->$/, '')
    .replace(/^\s*\/\/\s*<!\[CDATA\[/, '')
    .replace(/^<!\[CDATA\[/, '')
    .replace(/\/\/\s*\]\]>\s*$/, '')
    .replace(/\]\]>\s*$/, '')
    .trim()
    .replace(/;\s*$/, '');
}

/** Cuts the text after the first balanced top-level value (for trailing junk after the JSON). */
function firstBalancedValue(text: string): string | null {
  const start = text.search(/[[{]/);
  if (start < 0) return null;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return text.slice(start, i + 1);
    }
  }
  return null;
}

export function parseTolerantJson(raw: string): unknown {
  const text = stripWrappers(raw);
  if (!text) return null;
  const attempts: Array<() => string | null> = [
    () => text,
    // Twice: a comma followed by a comment only becomes a trailing comma once the comment is gone.
    () => repairJson(repairJson(text)),
    () => repairJson(repairJson(decodeBasicEntities(text))),
    () => firstBalancedValue(repairJson(text)),
  ];
  for (const attempt of attempts) {
    const candidate = attempt();
    if (!candidate) continue;
    try {
      return JSON.parse(candidate);
    } catch {
      // next repair
    }
  }
  return null;
}
