-- Short change ids (issue 41): people read and type a change by the last 8 hex digits of its id (UUIDv7 ids share
-- their first digits for a minute, so a prefix is long; the tail is random). The history marks each change with
-- its short id, which grows to 12 digits when another change of the workspace ends in the same 8, and the routes
-- that take a change resolve a short id by the same tail. Both look the tail up per workspace: this index.
CREATE INDEX changes_workspace_tail_idx ON expense_internal.changes (workspace_id, right(change_id::text, 8));
