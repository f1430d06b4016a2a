import type { FastifyInstance } from 'fastify';
import type { ActionBuilder } from './actions.js';
import { ApiError } from './api-error.js';
import { sendError } from './send-error.js';

function routePattern(url: string): RegExp {
  const source = url
    .replace(/\/+$/, '')
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * No route matched: 405 method_not_allowed (with Allow) for a known path and another method, else 404 not_found.
 * Register before the routes: it learns them as they are added.
 */
export function registerNotFound(app: FastifyInstance, actions: ActionBuilder): void {
  const routes: { pattern: RegExp; method: string }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ pattern: routePattern(route.url), method });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    if (allowed.length > 0) {
      const error = new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}.`, {
        headers: { allow: allowed.join(', ') },
        details: { allowed },
      });
      return sendError(reply, error, actions);
    }
    return sendError(reply, new ApiError('not_found', `No route ${request.method} ${path}.`), actions);
  });
}
