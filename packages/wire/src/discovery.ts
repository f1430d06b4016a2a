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
  mcp: z
    .object({
      url: z.string().describe('Streamable HTTP MCP endpoint (stateless)'),
      auth: z.array(z.string()).describe('Authorization schemes /mcp accepts'),
      resourceMetadataUrl: z.string().describe('RFC 9728 protected-resource metadata, for OAuth 2.1 clients'),
    })
    .describe('The same service as MCP tools for agents (docs/mcp.md)'),
});
export type DiscoveryData = z.infer<typeof DiscoveryDataSchema>;

export const HealthDataSchema = z.object({
  status: z.enum(['ok']),
  database: z.enum(['ok']).optional(),
});
export type HealthData = z.infer<typeof HealthDataSchema>;
