// Pure page reading without network: analysis + (optional) platform JSON -> merged product and
// page classification. The rules merge the readers' candidates; the learned models (learned.ts)
// then re-decide price, title, brand, SKU and page type among every candidate. The engine adds
// the probe; benchmarks call this on saved pages.
import { analysePage, type AnalyseOptions, type PageAnalysis, withoutSiteName } from './analyse';
import type { ProductCandidate } from './candidate';
import { classifyPage, type PageClassification } from './classify';
import type { Readings } from './features';
import { type ExtractionWeights, learnedReading, WEIGHTS } from './learned';
import { mergeCandidates, type MergedProduct } from './merge';
import { identifierFromUrl } from './product-url';

export interface PageReading {
  analysis: PageAnalysis;
  merged: MergedProduct;
  classification: PageClassification;
}

/** The hand-written rules' reading, with what the learned models need to weigh it. */
export function ruleReading(analysis: PageAnalysis, platformCandidate: ProductCandidate | null = null): Readings {
  const candidates = platformCandidate ? [platformCandidate, ...analysis.candidates] : analysis.candidates;
  const merged = mergeCandidates(candidates, analysis.dom, identifierFromUrl(analysis.url), analysis.url);
  const classification = classifyPage(analysis, merged, !!platformCandidate);
  return { analysis, merged, classification, platform: platformCandidate };
}

/** The document title without the shop's name, as the page's analysis reads it. */
export const bareTitle = (analysis: PageAnalysis) => (title: string) =>
  withoutSiteName(title, analysis.facts.ogSiteName, analysis.url, null);

export function readAnalysedPage(
  analysis: PageAnalysis,
  platformCandidate: ProductCandidate | null = null,
  weights: ExtractionWeights = WEIGHTS,
): PageReading {
  const rules = ruleReading(analysis, platformCandidate);
  const { merged, classification } = learnedReading(rules, bareTitle(analysis), weights);
  return { analysis, merged, classification };
}

export function readProductPage(
  html: string,
  url: string,
  options: AnalyseOptions = {},
  weights: ExtractionWeights = WEIGHTS,
): PageReading {
  return readAnalysedPage(analysePage(html, url, options), null, weights);
}
