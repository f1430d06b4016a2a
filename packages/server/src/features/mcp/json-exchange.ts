import type {
  AuthInfo,
  JSONRPCMessage,
  JSONRPCRequest,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';

type RequestId = JSONRPCRequest['id'];

const isAnswer = (message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId } =>
  'id' in message && ('result' in message || 'error' in message);

/**
 * An MCP transport that stays connected to one pooled server instance and carries one exchange at a time: a
 * message in, its answer out as a value. It stands in for the SDK's web-standard transport on the 2025-era
 * stateless path (legacy.ts), which a pooled instance would otherwise connect and close for every message, with a
 * web Request and Response around each. What the server sends besides the answer (log or progress notifications,
 * requests to the client) is dropped, as the SDK's transport drops it in JSON-response mode: a stateless POST has
 * no stream to carry it.
 */
export class JsonExchange implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  supportedProtocolVersions: readonly string[] = [];
  private waiting: { id: RequestId; resolve: (answer: JSONRPCMessage) => void } | undefined;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.waiting = undefined;
    this.onclose?.();
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.supportedProtocolVersions = versions;
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    const waiting = this.waiting;
    if (waiting && isAnswer(message) && message.id === waiting.id) {
      this.waiting = undefined;
      waiting.resolve(message);
    }
  }

  /** Hands a message without an answer (a notification or a client's response) to the server. */
  deliver(message: JSONRPCMessage, authInfo: AuthInfo | undefined): void {
    this.onmessage?.(message, authInfo ? { authInfo } : undefined);
  }

  /** Hands a request to the server and resolves with its answer. */
  exchange(request: JSONRPCRequest, authInfo: AuthInfo | undefined): Promise<JSONRPCMessage> {
    if (this.waiting) return Promise.reject(new Error('A pooled MCP server got a second message at once.'));
    return new Promise((resolve) => {
      this.waiting = { id: request.id, resolve };
      this.deliver(request, authInfo);
    });
  }
}
