import { GUIDE_TOPICS, guide, isGuideTopic } from '@expense/mcp/guide';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../platform/http/api-error.js';

const MARKDOWN = 'text/markdown; charset=utf-8';

/**
 * Every HTTP topic in one document, in the order an agent needs them, as written for HTTP. The `mcp` topic (how
 * to switch to the MCP tools) is served on its own at /guide/mcp, also as written for HTTP: it names the tools but
 * leaves their confirmToken flow to `get_guide` over MCP, so every text served here describes one write flow.
 */
const WHOLE = GUIDE_TOPICS.filter((topic) => topic !== 'mcp')
  .map((topic) => guide(topic, 'http').trim())
  .join('\n\n---\n\n');

/** GET /v1/guide (the agent guide as Markdown) and GET /v1/guide/{topic}. */
export function guideRoutes(): FastifyPluginAsyncZod {
  return async (app) => {
    const response = { 200: z.string(), '4xx': z.unknown() };
    app.get(
      '/guide',
      {
        schema: {
          tags: ['discovery'],
          summary: 'The agent guide (Markdown): the SQL dialect, writing data, recipes',
          produces: ['text/markdown'],
          response,
        },
      },
      async (_request, reply) => reply.type(MARKDOWN).send(WHOLE),
    );
    app.get(
      '/guide/:topic',
      {
        schema: {
          tags: ['discovery'],
          summary: `One topic of the agent guide (${GUIDE_TOPICS.join(', ')})`,
          produces: ['text/markdown'],
          params: z.object({ topic: z.string().max(40) }),
          response,
        },
      },
      async (request, reply) => {
        const { topic } = request.params;
        if (!isGuideTopic(topic)) {
          throw new ApiError('not_found', `The guide has no topic '${topic}'.`, {
            variant: 'guide_topic',
          });
        }
        return reply.type(MARKDOWN).send(guide(topic, 'http'));
      },
    );
  };
}
