-- Per-workspace paths that do not depend on how many other workspaces share the tables (issue 42's scale benchmark:
-- one household's ~20,000 entries among 10,000 workspaces and 10 million entries, beside the same workspace alone).
--
-- 1. A workspace's rows in the order of their key. The export (GET /workspaces/{id}/export, issue 40) reads
--    ledger_entries and budget_lines in keyset pages: WHERE workspace_id = $1 AND <key> > $2 ORDER BY <key> LIMIT
--    1000. The only index in key order was the primary key (entry_id, line_id) alone, so PostgreSQL walked it from
--    the last key on and dropped every other workspace's row on the way (~5,000 rows read per 1,000-row page among
--    50 workspaces, growing with the service), or read the whole workspace and sorted it for each page. With
--    (workspace_id, key) a page reads its own 1,000 index entries and rows, whatever else the tables hold.
CREATE INDEX ledger_entries_workspace_entry_idx ON public.ledger_entries (workspace_id, entry_id);
CREATE INDEX budget_lines_workspace_line_idx ON public.budget_lines (workspace_id, line_id);

-- 2. The reads of a range of time answered from the index alone. A workspace's entries are written over years
--    between everyone else's, so each lies on a heap page of its own: a year's report read ~4,000 pages among
--    millions where the same workspace alone reads ~170, and balances (every entry up to the range's end) read all
--    of the workspace's pages, twice (1.6x of alone at a million entries). The columns the SQL endpoints' aggregates
--    and the four reports read (account, kind, category, currency, amount) now ride in (workspace_id, ts), so those
--    scans are index-only over one contiguous run of the workspace's index entries. Same name and key as before.
DROP INDEX public.ledger_entries_workspace_ts_idx;
CREATE INDEX ledger_entries_workspace_ts_idx ON public.ledger_entries (workspace_id, ts)
  INCLUDE (account_id, kind, category, currency, amount);
