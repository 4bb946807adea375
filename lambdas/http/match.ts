// Path-template matching over the route table, shared by the local server and the fallback.
import { ROUTES, type Route } from '../topology/routes';

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

const compiled: CompiledRoute[] = ROUTES.map((route) => {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]);
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}/?$`), names };
});

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

/** Routes whose template matches `path`, whatever their method. */
export function routesForPath(path: string): RouteMatch[] {
  const matches: RouteMatch[] = [];
  for (const { route, pattern, names } of compiled) {
    const m = pattern.exec(path);
    if (!m) continue;
    const pathParameters: Record<string, string> = {};
    names.forEach((name, i) => {
      let value = m[i + 1];
      try {
        value = decodeURIComponent(value);
      } catch {
        // Keep the raw segment; validation will judge it.
      }
      pathParameters[name] = value;
    });
    matches.push({ route, pathParameters });
  }
  // A literal segment beats a parameter (API Gateway's rule): /v1/products before /v1/products/{id}.
  return matches.sort((a, b) => Object.keys(a.pathParameters).length - Object.keys(b.pathParameters).length);
}

// Routes without path parameters by "METHOD path" (with and without the trailing slash their
// pattern allows), first in table order: a literal route is what the full match below would pick
// first for its method (no parameters sorts first), so a request to one skips every pattern.
const literalRoutes = new Map<string, Route>();
for (const { route, names } of compiled) {
  if (names.length) continue;
  for (const key of [`${route.method} ${route.path}`, `${route.method} ${route.path}/`])
    if (!literalRoutes.has(key)) literalRoutes.set(key, route);
}

export function matchRoute(method: string, path: string): RouteMatch | null {
  const upper = method.toUpperCase();
  const literal = literalRoutes.get(`${upper} ${path}`);
  if (literal) return { route: literal, pathParameters: {} };
  return routesForPath(path).find((m) => m.route.method === upper) ?? null;
}
