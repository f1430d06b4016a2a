import { FailureEnvelopeSchema, successEnvelope } from '@expense/wire';
import type { z } from 'zod';

/** Response schemas of a route: its success envelope, and the failure envelope for every error status. */
export function responses<T extends z.ZodType>(status: 200 | 201, data: T) {
  return {
    [status]: successEnvelope(data),
    '4xx': FailureEnvelopeSchema,
    '5xx': FailureEnvelopeSchema,
  } as { [K in typeof status]: ReturnType<typeof successEnvelope<T>> } & {
    '4xx': typeof FailureEnvelopeSchema;
    '5xx': typeof FailureEnvelopeSchema;
  };
}

export const errorResponses = { '4xx': FailureEnvelopeSchema, '5xx': FailureEnvelopeSchema };

export const apiKeySecurity = [{ ApiKey: [] }];
