import type { McpApi, McpImportApi } from '@expense/mcp';
import type { McpServer } from '@modelcontextprotocol/server';
import { JsonExchange } from './json-exchange.js';

/**
 * The messages that leave nothing on a server instance: after one of them the instance may serve another caller.
 * `initialize` (the client's capabilities and identity) and `logging/setLevel` do leave state: such an instance
 * is dropped after its message.
 */
const LEAVES_NO_STATE = new Set([
  'tools/call',
  'tools/list',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'ping',
]);

export function leavesNoState(message: unknown): boolean {
  const method = (message as { method?: unknown } | null)?.method;
  return typeof method === 'string' && LEAVES_NO_STATE.has(method);
}

/** A server instance lent for one message (through its connected transport), and its return. */
export interface ServerLease {
  transport: JsonExchange;
  /** After the message: back to the pool when `reusable`, else closed and dropped. */
  release(reusable: boolean): void;
}

interface Pooled {
  server: McpServer;
  /** Absent for a detached instance (the SDK's 2026-07-28 handler connects it to its own transport). */
  transport?: JsonExchange;
  bind(api: McpApi | undefined): void;
}

/** A detached instance lent for one 2026-07-28 message, and its return. */
export interface DetachedLease {
  server: McpServer;
  /**
   * After the exchange: back to the pool when `reusable` and the SDK's per-request transport is closed (the
   * handler answered: nothing of it still runs with the bound api), else dropped.
   */
  release(reusable: boolean): void;
}

/**
 * What a message leaves on a Server besides its answer: the client's identity, which the 2026-07-28 handler seeds
 * from each request's `_meta` but does not clear when a request carries none. A fresh instance has neither.
 */
interface ClientIdentity {
  _clientCapabilities?: unknown;
  _clientVersion?: unknown;
}
function forgetClient(server: McpServer): void {
  const identity = server.server as unknown as ClientIdentity;
  identity._clientCapabilities = undefined;
  identity._clientVersion = undefined;
}

/** An McpApi that forwards to the api bound for the current message (one message at a time per instance). */
function forwardingApi(): { api: Required<McpApi> & McpImportApi; bind(api: McpApi | undefined): void } {
  let bound: (Required<McpApi> & McpImportApi) | undefined;
  const to = (): Required<McpApi> & McpImportApi => {
    if (!bound) throw new Error('A pooled MCP server was used outside of a message.');
    return bound;
  };
  return {
    api: {
      workspaces: () => to().workspaces(),
      invitations: () => to().invitations(),
      schema: (workspaceId) => to().schema(workspaceId),
      sql: (endpoint, sql, call) => to().sql(endpoint, sql, call),
      changes: (call) => to().changes(call),
      report: (input, call) => to().report(input, call),
      revertChange: (changeId, call) => to().revertChange(changeId, call),
      importFile: (file, call) => to().importFile(file, call),
    },
    bind: (api) => {
      bound = api as (Required<McpApi> & McpImportApi) | undefined;
    },
  };
}

/**
 * Server instances kept per process between stateless messages: building one (its tools, resources and prompts)
 * costs more than the `query` tool's own work (issue 22). Instances differ by what shapes their tool list (the
 * key's consent: read-only, pinned workspace), the pool's key; the caller's API is bound per message. At most
 * `perKey` idle instances per key and `keys` keys (the oldest key goes first).
 */
export class ServerPool {
  private readonly idle = new Map<string, Pooled[]>();

  constructor(private readonly limits = { perKey: 4, keys: 256 }) {}

  /** An instance for `key` (built by `build` when none is idle) with `api` bound for this message. */
  async lease(key: string, api: Required<McpApi>, build: (api: McpApi) => McpServer): Promise<ServerLease> {
    const pooled = this.idle.get(key)?.pop() ?? (await this.create(build));
    pooled.bind(api);
    return {
      transport: pooled.transport!,
      release: (reusable) => {
        if (reusable) this.give(key, pooled);
        else void pooled.server.close();
      },
    };
  }

  /**
   * An unconnected instance for `key` with `api` bound, for the SDK's 2026-07-28 handler, which connects it to a
   * per-request transport and closes that after the answer (its factory would otherwise build one per message).
   * A pool holds either detached or connected instances: use one pool for each.
   */
  leaseDetached(key: string, api: Required<McpApi>, build: (api: McpApi) => McpServer): DetachedLease {
    const pooled = this.idle.get(key)?.pop() ?? this.detached(build);
    pooled.bind(api);
    return {
      server: pooled.server,
      release: (reusable) => {
        if (reusable && pooled.server.server.transport === undefined) {
          forgetClient(pooled.server);
          this.give(key, pooled);
        }
        // Otherwise dropped, still bound: an answer still streaming keeps its caller's api.
      },
    };
  }

  private async create(build: (api: McpApi) => McpServer): Promise<Pooled> {
    const { api, bind } = forwardingApi();
    const server = build(api);
    const transport = new JsonExchange();
    await server.connect(transport);
    return { server, transport, bind };
  }

  private detached(build: (api: McpApi) => McpServer): Pooled {
    const { api, bind } = forwardingApi();
    return { server: build(api), bind };
  }

  private evictOldestKey(): void {
    const [key, list] = this.idle.entries().next().value!;
    this.idle.delete(key);
    for (const pooled of list) void pooled.server.close();
  }

  /** Closes every idle instance (the app is closing). */
  async close(): Promise<void> {
    const lists = [...this.idle.values()];
    this.idle.clear();
    await Promise.all(lists.flat().map((pooled) => pooled.server.close()));
  }

  private give(key: string, pooled: Pooled): void {
    pooled.bind(undefined);
    let list = this.idle.get(key);
    if (!list) {
      if (this.idle.size >= this.limits.keys) this.evictOldestKey();
      list = [];
      this.idle.set(key, list);
    }
    if (list.length < this.limits.perKey) list.push(pooled);
    else void pooled.server.close();
  }
}
