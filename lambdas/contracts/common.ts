// Building blocks shared by the request and response schemas of the three families.
import * as z from 'zod';
import { DEFAULT_USAGE_PERIOD, USAGE_PERIODS } from '../domain/usage/periods';
import { MAX_URL_LENGTH } from '../domain/extraction/url';

export { MAX_URL_LENGTH };

/** Largest page number accepted: far beyond any real listing, small enough to stay exact. */
export const MAX_PAGE = 1_000_000;

/** An integer query/body parameter with a message that names it and its range. */
export function intParam(name: string, min: number, max: number) {
  const error = `${name} must be an integer from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

/** The same for JSON bodies, where a string "5" is a wrong type, not a number. */
export function intField(name: string, min: number, max: number) {
  const error = `${name} must be an integer from ${min} to ${max}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

export const pageParam = () => intParam('page', 1, MAX_PAGE).default(1).describe('1-based page number');
export const pageSizeParam = (defaultSize: number, name = 'page_size') =>
  intParam(name, 1, 100).default(defaultSize).describe(`Items per page, 1 to 100 (default ${defaultSize})`);

export const periodParam = () =>
  z
    .enum(USAGE_PERIODS, { error: `period must be one of ${USAGE_PERIODS.join(', ')}` })
    .default(DEFAULT_USAGE_PERIOD)
    .describe(`Period ending now over which calls are summed (default ${DEFAULT_USAGE_PERIOD})`);

export const executionStatusFilter = () =>
  z
    .enum(['processing', 'completed', 'failed'], { error: 'status must be one of processing, completed, failed' })
    .optional()
    .describe('`processing` matches pending and running executions; omitted means all');

export const COUNTRY_CODES = [
  'nl',
  'ca',
  'si',
  'co',
  'by',
  'ee',
  'no',
  'br',
  'us',
  'de',
  'es',
  'vn',
  'il',
  'th',
  'gb',
  'ph',
  'kg',
  'in',
  'ru',
  'fr',
  'hk',
  'ua',
  'jp',
  'at',
  'mm',
  'my',
  'pl',
  'au',
  'nz',
  'ro',
  'tw',
  'mx',
  'id',
  'dk',
  'ng',
  'ch',
  'hu',
  'sg',
  'sa',
  'ae',
  'cn',
  'ar',
  'cl',
  'it',
  'tr',
  'lv',
  'gh',
  'sk',
  'gr',
  'eg',
  'lu',
  'bg',
  'se',
  'lt',
  'lk',
  'kz',
  'hr',
  'bd',
  'kr',
  'cz',
  'fi',
  'ie',
  'be',
  'pt',
  'za',
] as const;

export const countryCode = () =>
  z
    .preprocess(
      (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
      z.enum(COUNTRY_CODES, { error: 'country_code must be a supported two-letter country code' }),
    )
    .default('us');

export const flag = (name: string, defaultValue: boolean) =>
  z.boolean({ error: `${name} must be a boolean` }).default(defaultValue);

export const nonEmptyString = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, { error: `${name} must not be empty` });

/** A URL or hostname field: non-empty and at most MAX_URL_LENGTH characters, as in every family. */
export const urlString = (name: string) =>
  nonEmptyString(name).max(MAX_URL_LENGTH, { error: `${name} must be at most ${MAX_URL_LENGTH} characters` });

export const urlList = (name: string, max: number, min = 1) =>
  z
    .array(
      z
        .string({ error: `each entry of ${name} must be a string` })
        .max(MAX_URL_LENGTH, { error: `each entry of ${name} must be at most ${MAX_URL_LENGTH} characters` }),
      { error: `${name} must be an array of strings` },
    )
    .min(min, { error: `${name} must contain at least ${min} URL${min === 1 ? '' : 's'}` })
    .max(max, { error: `${name} must contain at most ${max} URLs` });

export const executionIdPath = () => z.object({ execution_id: z.string().min(1).max(200) });

export const Timestamp = z.string().describe('ISO 8601 timestamp, UTC');

// ---- paging forms ----
export const V2Pagination = z
  .object({
    page: z.number().int(),
    page_size: z.number().int(),
    total_items: z.number().int(),
    total_pages: z.number().int(),
    has_next: z.boolean(),
    has_prev: z.boolean(),
  })
  .meta({ id: 'V2Pagination' });

export const V1Meta = z
  .object({
    total_items: z.number().int(),
    total_pages: z.number().int(),
    current_page: z.number().int(),
    page_size: z.number().int(),
    has_next: z.boolean().optional(),
    has_prev: z.boolean().optional(),
  })
  .meta({ id: 'V1Meta' });

export const LegacyMeta = z
  .object({
    totalItems: z.number().int(),
    totalPages: z.number().int(),
    currentPage: z.number().int(),
    pageSize: z.number().int(),
  })
  .meta({ id: 'LegacyMeta' });

export const v2Envelope = <T extends z.ZodType, M extends z.ZodType>(item: T, meta: M) =>
  z.object({ data: z.array(item), pagination: V2Pagination, meta });

export const EmptyMeta = z.object({}).describe('Empty for this operation');

export interface Page<T> {
  items: T[];
  pagination: z.infer<typeof V2Pagination>;
}

/** Slices one page out of a full, ordered list. */
export function paginate<T>(all: readonly T[], page: number, pageSize: number): Page<T> {
  const totalPages = Math.ceil(all.length / pageSize);
  return {
    items: all.slice((page - 1) * pageSize, page * pageSize),
    pagination: {
      page,
      page_size: pageSize,
      total_items: all.length,
      total_pages: totalPages,
      has_next: page < totalPages,
      has_prev: page > 1,
    },
  };
}

// ---- error bodies ----
export const AuthErrorBody = z
  .object({ error: z.string(), status: z.literal(401) })
  .meta({ id: 'AuthError', description: 'Missing or invalid API key (all families)' });

export const LegacyErrorBody = z
  .object({ error: z.string(), details: z.string().optional(), code: z.string() })
  .meta({ id: 'LegacyError', description: 'Error body of the legacy and v1 families' });

export const V2ErrorBody = z
  .looseObject({
    error: z.object({ code: z.string(), message: z.string(), request_id: z.string() }),
  })
  .meta({ id: 'V2Error', description: 'v2 error: `error` plus context fields such as `invalid_urls`' });
