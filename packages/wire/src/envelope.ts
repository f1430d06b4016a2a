import { z } from 'zod';
import { ErrorCodeSchema } from './errors.js';

/** A legal next call, with an absolute URL. */
export const ActionSchema = z
  .object({
    name: z.string(),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
    url: z.string(),
    urlTemplate: z.string().optional(),
    auth: z.enum(['none', 'ApiKey']),
    input: z.record(z.string(), z.unknown()).optional().describe('JSON Schema of the body, when it has one'),
  })
  .meta({ id: 'Action' });
export type Action = z.infer<typeof ActionSchema>;

export const ErrorBodySchema = z
  .object({
    code: ErrorCodeSchema,
    message: z.string(),
    hint: z.string(),
    retryable: z.boolean(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export const FailureEnvelopeSchema = z
  .object({
    ok: z.literal(false),
    error: ErrorBodySchema,
    instructions: z.array(z.string()),
    actions: z.array(ActionSchema),
  })
  .meta({ id: 'FailureEnvelope' });
export type FailureEnvelope = z.infer<typeof FailureEnvelopeSchema>;

/** The success envelope around a route's data schema. */
export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.object({
    ok: z.literal(true),
    data,
    instructions: z.array(z.string()),
    actions: z.array(ActionSchema),
  });
}
export interface SuccessEnvelope<T> {
  ok: true;
  data: T;
  instructions: string[];
  actions: Action[];
}
export type Envelope<T> = SuccessEnvelope<T> | FailureEnvelope;
