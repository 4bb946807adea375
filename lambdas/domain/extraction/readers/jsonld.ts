// JSON-LD reader: every ld+json block, repaired when it is not strict JSON, unwrapped into
// top-level schema.org nodes and interpreted.
import type { CheerioAPI } from 'cheerio';
import { parseTolerantJson } from '../tolerant-json';
import { interpretSchemaNodes, pageHeading, topLevelNodes, type SchemaNode, type SchemaReading } from './schema-org';

export function jsonLdNodes($: CheerioAPI): SchemaNode[] {
  const nodes: SchemaNode[] = [];
  $('script').each((_, el) => {
    const type = ($(el).attr('type') ?? '').toLowerCase();
    if (!type.includes('ld+json')) return;
    const parsed = parseTolerantJson($(el).text());
    if (parsed != null) topLevelNodes(parsed, nodes);
  });
  return nodes;
}

export function readJsonLd($: CheerioAPI, pageUrl: string): SchemaReading {
  return interpretSchemaNodes(jsonLdNodes($), 'json_ld', pageUrl, () => pageHeading($));
}
