import { z } from 'zod';
import { LabelSchema, UserSchema } from './auth.js';
import { ClockSchema } from './schema.js';

export const ConnectionSchema = z.object({
  connectionId: z.string(),
  label: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type Connection = z.infer<typeof ConnectionSchema>;

export const MeDataSchema = z.object({
  user: UserSchema,
  connection: ConnectionSchema,
  selectedWorkspaceId: z.string().nullable(),
  clock: ClockSchema.describe("the selected workspace's clock (UTC without one)"),
});
export type MeData = z.infer<typeof MeDataSchema>;

export const KeySchema = ConnectionSchema.extend({
  current: z.boolean().describe('true for the key that made this request'),
});
export type Key = z.infer<typeof KeySchema>;

export const KeysDataSchema = z.object({ keys: z.array(KeySchema) });
export type KeysData = z.infer<typeof KeysDataSchema>;

export const ConnectionParamsSchema = z.object({ connectionId: z.string() });

export const CreateKeyBodySchema = z.object({ label: LabelSchema });
export type CreateKeyBody = z.infer<typeof CreateKeyBodySchema>;

export const CreateKeyDataSchema = z.object({
  apiKey: z.string().describe('the new key: shown only in this answer'),
  connection: z.object({
    connectionId: z.string(),
    label: z.string(),
    kind: z.literal('agent'),
    createdAt: z.string(),
  }),
});
export type CreateKeyData = z.infer<typeof CreateKeyDataSchema>;
