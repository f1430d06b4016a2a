// Shapes the console's modules share (JSDoc imports them: `import('./types/console').PageProps`).

/** The `error` of an API envelope (or a page's own refusal, with only a message). */
export interface ApiError {
  message: string;
  code?: string;
  hint?: string;
  details?: { position?: { line: number; column: number } } & Record<string, unknown>;
}

/** A workspace as GET /workspaces lists it. */
export interface Workspace {
  workspaceId: string;
  name: string;
  role: 'owner' | 'member';
}

/** The selected workspace's reporting currency and time zone. */
export interface Settings {
  currency: string;
  timeZone: string;
}

/** GET /me. */
export interface Me {
  user: { userId: string; email: string };
  selectedWorkspaceId?: string | null;
}

/** What the application gives every page. */
export interface PageProps {
  me: Me | null;
  workspaceId: string | null;
  workspace: Workspace | null;
  role: 'owner' | 'member' | null;
  settings: Settings | null;
  workspaces: Workspace[] | null;
  selectWorkspace: (workspaceId: string | null, store?: boolean) => void;
  reloadWorkspaces: () => void;
  reloadSettings: () => void;
}

/** A row of a SELECT: JSON values by column name. */
// biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read as its route's response schema describes it.
export type Row = Record<string, any>;

/** The event of a field's input or change: its element's value (an input, a select, a textarea). */
export type FieldEvent = Event & { currentTarget: { value: string } };

/** The change event of a file input. */
export type FileEvent = Event & { currentTarget: HTMLInputElement };

/** An object of the API's JSON answers (a key, a change, a report, …), read as the route's schema gives it. */
// biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read as its route's response schema describes it.
export type Json = Record<string, any>;
