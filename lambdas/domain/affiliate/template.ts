// The network link template (Config.affiliateLinkTemplate, PDS_AFFILIATE_LINK_TEMPLATE), in the
// offline deep-link style the networks use: no API call per link, the merchant id, the device id
// and the URL-encoded deep link are placed into a fixed URL.
import { normalizeDomain } from './domains';

export const DEFAULT_LINK_TEMPLATE = 'https://go.pds-affiliate.example/e?c={merchant_id}&d={device_id}&url={url}';

const PLACEHOLDERS = ['merchant_id', 'device_id', 'url'] as const;
type Placeholder = (typeof PLACEHOLDERS)[number];
const REQUIRED: readonly Placeholder[] = ['device_id', 'url'];

export interface LinkTemplate {
  readonly source: string;
  /** The host links are served from (a URL on it is already ours: stand-down). */
  readonly host: string;
  render(values: Record<Placeholder, string>): string;
}

/** Compiles and checks a template; throws a message naming what is wrong (read at cold start). */
export function compileLinkTemplate(source: string): LinkTemplate {
  const template = source.trim();
  const parts: Array<string | Placeholder> = [];
  let last = 0;
  for (const match of template.matchAll(/\{([^{}]*)\}/g)) {
    const name = match[1] as Placeholder;
    if (!PLACEHOLDERS.includes(name)) {
      throw new Error(
        `affiliate link template: unknown placeholder {${match[1]}} (use ${PLACEHOLDERS.map((p) => `{${p}}`).join(', ')})`,
      );
    }
    parts.push(template.slice(last, match.index), name);
    last = match.index! + match[0].length;
  }
  parts.push(template.slice(last));
  for (const name of REQUIRED) {
    if (!parts.includes(name)) throw new Error(`affiliate link template must contain {${name}}: "${template}"`);
  }
  const render = (values: Record<Placeholder, string>) =>
    parts.map((part, i) => (i % 2 === 1 ? encodeURIComponent(values[part as Placeholder]) : part)).join('');
  let sample: URL;
  try {
    sample = new URL(render({ merchant_id: 'm', device_id: 'd', url: 'https://shop.example/p' }));
  } catch {
    throw new Error(`affiliate link template is not an absolute URL: "${template}"`);
  }
  if (sample.protocol !== 'https:' && sample.protocol !== 'http:')
    throw new Error(`affiliate link template must be an http(s) URL: "${template}"`);
  // The host is fixed text: a placeholder in it would let a deep link choose where links point.
  if (!/^https?:\/\/[^/?#{}]+[/?#]/i.test(parts[0] as string))
    throw new Error(`affiliate link template: the host cannot hold a placeholder: "${template}"`);
  return { source: template, host: normalizeDomain(sample.hostname), render };
}
