/**
 * Offset pagination as the real API does it: `page` (default 1) and `per_page` (default 20, at most
 * 100), headers X-Total, X-Total-Pages, X-Page, X-Per-Page, X-Next-Page, X-Prev-Page and a Link
 * header with absolute rel="prev"/"next"/"first"/"last" URLs that keep the other query parameters.
 * Above `countLimit` results (10,000 on the real service, `api_kaminari_count_with_limit`) the
 * service does not count: X-Total, X-Total-Pages and the rel="last" link are left out, and a
 * client finds the end through X-Next-Page / rel="next" alone.
 */
import { paramErrors } from './http.js';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;
/** Above this many results the real service omits X-Total, X-Total-Pages and rel="last". */
export const DEFAULT_COUNT_LIMIT = 10_000;

export interface PageRequest {
  /** Absolute URL of the list endpoint without query, e.g. http://127.0.0.1:1234/api/v4/groups/1/access_tokens */
  readonly url: string;
  /** The raw query string of the request (without '?'). */
  readonly query: string;
  /** Above this many results the count headers are left out (default {@link DEFAULT_COUNT_LIMIT}). */
  readonly countLimit?: number | undefined;
}

function intParam(name: string, raw: string | null): number | undefined {
  if (raw === null || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw.trim())) throw paramErrors([`${name} is invalid`]);
  return Number(raw.trim());
}

export function paginate<T>(items: readonly T[], req: PageRequest): { items: T[]; headers: Record<string, string> } {
  const q = new URLSearchParams(req.query);
  const pageParam = intParam('page', q.get('page'));
  const perPageParam = intParam('per_page', q.get('per_page'));
  const perPage = perPageParam === undefined || perPageParam < 1 ? DEFAULT_PER_PAGE : Math.min(perPageParam, MAX_PER_PAGE);
  const page = pageParam === undefined || pageParam < 1 ? 1 : pageParam;
  const total = items.length;
  const counted = total <= (req.countLimit ?? DEFAULT_COUNT_LIMIT);
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const link = (p: number): string => {
    const params = new URLSearchParams(req.query);
    params.set('page', String(p));
    params.set('per_page', String(perPage));
    return `${req.url}?${params.toString()}`;
  };
  const links: string[] = [];
  const hasPrev = page > 1 && page <= totalPages; // Kaminari: no prev page when out of range
  if (hasPrev) links.push(`<${link(page - 1)}>; rel="prev"`);
  if (page < totalPages) links.push(`<${link(page + 1)}>; rel="next"`);
  links.push(`<${link(1)}>; rel="first"`);
  if (counted) links.push(`<${link(totalPages)}>; rel="last"`);
  return {
    items: slice,
    headers: {
      ...(counted ? { 'x-total': String(total), 'x-total-pages': String(totalPages) } : {}),
      'x-page': String(page),
      'x-per-page': String(perPage),
      'x-next-page': page < totalPages ? String(page + 1) : '',
      'x-prev-page': hasPrev ? String(page - 1) : '',
      link: links.join(', '),
    },
  };
}
