import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ActionBuilder } from './actions.js';
import { ApiError } from './api-error.js';
import { failure } from './envelope.js';
import { newRequestId } from './http-basics.js';
import { sendError } from './send-error.js';

/**
 * Fastify answers a few malformed requests before any route or hook runs (bad percent-encoding, an
 * over-long path parameter): Fastify's `frameworkErrors` option. They get the same envelope.
 */
export function frameworkErrorHandler(actions: ActionBuilder) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const apiError =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new ApiError('not_found', 'No such resource: a path parameter is longer than any valid id.')
        : new ApiError('invalid_request', 'The request URL is not valid (check its percent-encoding).');
    reply.header('x-request-id', request.id);
    sendError(reply, apiError, actions);
  };
}

/** The answer on the socket for each kind of client error Node reports (anything else: not HTTP). */
function answerOf(code: string | undefined): { status: string; error: ApiError } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { status: '408 Request Timeout', error: new ApiError('request_timeout') };
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: '431 Request Header Fields Too Large',
      error: new ApiError('invalid_request', 'The request headers are too large.'),
    };
  }
  return {
    status: '400 Bad Request',
    error: new ApiError('invalid_request', 'The request is not valid HTTP.'),
  };
}

/**
 * Node's `clientError` for requests it cannot parse as HTTP, or that did not arrive in full in time (Fastify's
 * `clientErrorHandler` option): a 400 (431 for oversized headers, 408 for a request or an idle new connection past
 * its time limit, see timeouts.ts) envelope on the socket, then close it.
 */
export function clientErrorHandler(actions: ActionBuilder) {
  return (error: NodeJS.ErrnoException, socket: Duplex): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
    // An answer already under way on this socket (as Node checks): another status line would corrupt it.
    if ((socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, error: apiError } = answerOf(error.code);
    const body = JSON.stringify(failure(apiError, actions));
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${newRequestId()}\r\nConnection: close\r\n\r\n${body}`,
      // The server's sockets are half-open (Node's http server): ended alone, a socket would stay open until
      // the client closes its side, which a client that stopped sending may never do.
      () => socket.destroy(),
    );
  };
}
