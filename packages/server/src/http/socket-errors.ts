import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ActionBuilder } from './actions.js';
import { ApiError } from './api-error.js';
import { failure } from './envelope.js';
import { newRequestId } from './request-id.js';
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

/**
 * Node's `clientError` for requests it cannot parse as HTTP (Fastify's `clientErrorHandler` option): a plain
 * 400 (431 for oversized headers) envelope on the socket, then close it.
 */
export function clientErrorHandler(actions: ActionBuilder) {
  return (error: NodeJS.ErrnoException, socket: Duplex): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify(
      failure(
        new ApiError(
          'invalid_request',
          tooLarge ? 'The request headers are too large.' : 'The request is not valid HTTP.',
        ),
        actions,
      ),
    );
    const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${newRequestId()}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
