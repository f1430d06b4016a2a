export interface McpOptions {
  readOnly?: boolean;
}
