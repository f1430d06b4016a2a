import { z } from 'zod';

export const DiscoveryDataSchema = z.object({
  service: z.object({ name: z.string(), version: z.literal('v1') }),
  apiBaseUrl: z.string(),
  authBaseUrl: z.string(),
  auth: z.object({
    scheme: z.literal('ApiKey'),
    header: z.literal('Authorization'),
    bootstrapUrl: z.string(),
  }),
  docs: z.object({
    openapiUrl: z.string(),
    readmeUrl: z.string(),
    guideUrl: z.string().describe("the agent's guide (Markdown): dialect, writing data, recipes"),
    sourceUrl: z.string(),
  }),
});
export type DiscoveryData = z.infer<typeof DiscoveryDataSchema>;

export const HealthDataSchema = z.object({
  status: z.enum(['ok']),
  database: z.enum(['ok']).optional(),
});
export type HealthData = z.infer<typeof HealthDataSchema>;
