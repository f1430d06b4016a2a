import type { ServerOptions } from 'node:http';
import type { ServerConfig } from '../config/config.js';

/**
 * The Fastify options that bound how long a client may take to send a request (config.md, "HTTP time limits").
 *
 * - `requestTimeout`: Node's limit on receiving one whole request, headers and body, from its first byte. It ends
 *   when the request has arrived: the answer (SQL up to its 25 s deadline, an export, an MCP stream) is not timed.
 * - `headersTimeout` (the connection timeout): a new connection is counted from its accept, so one that sends
 *   nothing is closed after it; any request's headers must arrive within it of its first byte.
 * - Fastify sets `requestTimeout` after creating Node's server, leaving `headersTimeout` at 60 s; Node swaps the two
 *   when headers get longer than the whole request, so both go to Node's constructor here.
 * - Node checks these limits every `connectionsCheckingInterval` (30 s by default, which would let a 30 s limit run
 *   to 60 s): a tenth of the shorter limit, between 10 ms and 1 s.
 *
 * Fastify's own `connectionTimeout` is not used: it is the socket's idle timeout for the connection's whole life, so
 * it would cut an answer that is silent for longer (a 20 s query, an MCP stream between events).
 */
export function httpTimeouts(config: Pick<ServerConfig, 'requestTimeoutMs' | 'connectionTimeoutMs'>): {
  requestTimeout: number;
  http: ServerOptions;
} {
  const headersTimeout = Math.min(config.connectionTimeoutMs, config.requestTimeoutMs);
  return {
    requestTimeout: config.requestTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout,
      connectionsCheckingInterval: Math.min(1_000, Math.max(10, Math.floor(headersTimeout / 10))),
    },
  };
}
