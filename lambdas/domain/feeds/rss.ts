// Merchant Center's XML format: an RSS 2.0 document with the g: namespace, one <item> per product
// variant, each attribute an element named after it (repeated for additional_image_link).
import type { MerchantItem } from './merchant';

const GOOGLE_NAMESPACE = 'http://base.google.com/ns/1.0';

// XML 1.0 allows no control characters but tab, newline and carriage return.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

function xmlEscape(value: string): string {
  return value
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function itemXml(item: MerchantItem): string {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) lines.push(`<g:${name}>${xmlEscape(one)}</g:${name}>`);
  }
  return `<item>\n${lines.join('\n')}\n</item>`;
}

interface ChannelInfo {
  title: string;
  link: string;
  description: string;
}

/** One RSS 2.0 document of these items. */
export function rssDocument(channel: ChannelInfo, items: readonly MerchantItem[]): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<rss version="2.0" xmlns:g="${GOOGLE_NAMESPACE}">`,
    '<channel>',
    `<title>${xmlEscape(channel.title)}</title>`,
    `<link>${xmlEscape(channel.link)}</link>`,
    `<description>${xmlEscape(channel.description)}</description>`,
    ...items.map(itemXml),
    '</channel>',
    '</rss>',
    '',
  ].join('\n');
}
