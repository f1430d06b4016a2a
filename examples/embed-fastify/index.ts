import { createServer, type ServerConfigInput } from '@expense/server';
import Fastify, { type FastifyInstance } from 'fastify';

/**
 * Another Fastify application that serves the expense API under /expense: the API is created with its own
 * configuration object and mounted as a child server, so its hooks, parsers and error envelopes stay its own.
 */
export async function buildHost(
  config: ServerConfigInput,
): Promise<{ host: FastifyInstance; close: () => Promise<void> }> {
  const expense = await createServer(config);
  const host = Fastify();
  host.get('/', async () => ({ app: 'host', expense: '/expense/v1/' }));
  // Everything under /expense goes to the child with the prefix removed.
  host.all('/expense/*', (request, reply) => {
    request.raw.url = request.raw.url!.slice('/expense'.length) || '/';
    reply.hijack();
    expense.routing(request.raw, reply.raw);
  });
  // The child parses bodies itself: hand them over unread.
  host.removeAllContentTypeParsers();
  host.addContentTypeParser('*', (_request, _payload, done) => done(null));
  return {
    host,
    close: async () => {
      await host.close();
      await expense.close();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.env.PORT ?? 3000);
  const { host } = await buildHost({
    databaseUrl: 'memory://',
    publicUrl: `http://127.0.0.1:${port}/expense`,
  });
  await host.listen({ host: '127.0.0.1', port });
  console.log(`host on http://127.0.0.1:${port}/, expense API on http://127.0.0.1:${port}/expense/v1/`);
}
