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
  // Optional in the schema so that clients of this version still read the answers of older servers.
  kind: z
    .enum(['agent', 'cli', 'oauth', 'console'])
    .optional()
    .describe(
      'agent: e-mailed code flow; cli: expense login; oauth: an OAuth client; console: a browser session',
    ),
  access: z.enum(['read', 'read_write']).optional().describe('read keys may only read'),
  workspaceId: z
    .string()
    .nullable()
    .optional()
    .describe("the one workspace this key reaches; null: all of the user's"),
  expiresAt: z.string().nullable().optional().describe('when the key stops working; null: until revoked'),
  client: z
    .object({ clientId: z.string(), name: z.string() })
    .optional()
    .describe('oauth keys: the OAuth client the user connected'),
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
