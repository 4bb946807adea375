// Pure page reading without network: analysis + (optional) platform JSON -> merged product and
// page classification. The engine adds the probe; benchmarks call this on saved pages.
import { analysePage, type AnalyseOptions, type PageAnalysis } from './analyse';
import type { ProductCandidate } from './candidate';
import { classifyPage, type PageClassification } from './classify';
import { mergeCandidates, type MergedProduct } from './merge';
import { identifierFromUrl } from './product-url';

export interface PageReading {
  analysis: PageAnalysis;
  merged: MergedProduct;
  classification: PageClassification;
}

export function readAnalysedPage(
  analysis: PageAnalysis,
  platformCandidate: ProductCandidate | null = null,
): PageReading {
  const candidates = platformCandidate ? [platformCandidate, ...analysis.candidates] : analysis.candidates;
  const merged = mergeCandidates(candidates, analysis.dom, identifierFromUrl(analysis.url), analysis.url);
  const classification = classifyPage(analysis, merged, !!platformCandidate);
  return { analysis, merged, classification };
}

export function readProductPage(html: string, url: string, options: AnalyseOptions = {}): PageReading {
  return readAnalysedPage(analysePage(html, url, options));
}
