/**
 * A project tracker as people build them with agents: workspaces (the tenants), members with private columns
 * (`password_hash`, `api_token`), projects, tasks with an enum status, a security_invoker view, every table keyed by
 * `(workspace_id, id)` and referencing by it, and row-level security on the workspace the transaction names
 * (`SET LOCAL app.workspace = '…'`). The role's privileges are the application's own grants: column SELECT on
 * members keeps its secrets out of reach; introspectDialect reads them, grantStatements narrows them.
 */
export function saasSchema(role: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(role)) throw new TypeError(`not a role name: ${role}`);
  const workspace = "current_setting('app.workspace')::integer";
  const tables = ['members', 'projects', 'tasks'];
  return `
CREATE ROLE ${role} NOLOGIN;
CREATE TYPE task_status AS ENUM ('todo', 'doing', 'done');
CREATE TABLE members (
  id serial, workspace_id integer NOT NULL DEFAULT ${workspace}, name text NOT NULL, email text NOT NULL,
  password_hash text NOT NULL, api_token text, PRIMARY KEY (workspace_id, id), UNIQUE (workspace_id, email)
);
CREATE TABLE projects (
  id serial, workspace_id integer NOT NULL DEFAULT ${workspace}, title text NOT NULL, owner_id integer NOT NULL,
  PRIMARY KEY (workspace_id, id), FOREIGN KEY (workspace_id, owner_id) REFERENCES members (workspace_id, id)
);
CREATE TABLE tasks (
  id serial, workspace_id integer NOT NULL DEFAULT ${workspace}, project_id integer NOT NULL, assignee_id integer,
  title text NOT NULL, status task_status NOT NULL DEFAULT 'todo', due date, PRIMARY KEY (workspace_id, id),
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id),
  FOREIGN KEY (workspace_id, assignee_id) REFERENCES members (workspace_id, id)
);
${tables.map((t) => `ALTER TABLE ${t} ENABLE ROW LEVEL SECURITY;\nCREATE POLICY ${t}_workspace ON ${t} USING (workspace_id = ${workspace});`).join('\n')}
CREATE VIEW open_tasks WITH (security_invoker = true) AS
  SELECT t.workspace_id, t.id, t.title, t.status, p.title AS project FROM tasks t JOIN projects p
  ON p.workspace_id = t.workspace_id AND p.id = t.project_id WHERE t.status <> 'done';
GRANT SELECT (id, workspace_id, name, email) ON members TO ${role};
GRANT SELECT ON projects TO ${role};
GRANT SELECT, INSERT, UPDATE ON tasks TO ${role};
GRANT SELECT ON open_tasks TO ${role};
`;
}

/** Two workspaces' rows (as the owner, who is not subject to the policies). */
export const saasRows = `
INSERT INTO members (workspace_id, name, email, password_hash, api_token) VALUES
  (1, 'Ada', 'ada@one.example', 'hash-ada', 'token-ada'), (1, 'Alan', 'alan@one.example', 'hash-alan', NULL),
  (2, 'Grace', 'grace@two.example', 'hash-grace', 'token-grace');
INSERT INTO projects (workspace_id, title, owner_id) VALUES (1, 'Engine', 1), (2, 'Compiler', 3);
INSERT INTO tasks (workspace_id, project_id, assignee_id, title, status, due) VALUES
  (1, 1, 1, 'Design', 'done', '2026-11-01'), (1, 1, 2, 'Build', 'doing', '2026-11-20'),
  (1, 1, NULL, 'Test', 'todo', NULL), (2, 2, 3, 'Parse', 'doing', '2026-11-15');
`;
