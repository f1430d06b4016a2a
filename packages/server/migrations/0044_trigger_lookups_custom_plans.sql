-- The duplicate external_id check (migration 0016, a row trigger) plans its lookup with the table as it is now.
-- PL/pgSQL caches a statement's plan per server session and, after five executions, keeps a generic plan made
-- without the row's values. One made while the workspace's table was empty or never analysed (a new database, a
-- workspace's first import) chose by the indexes' sizes alone and took (workspace_id, account_id, ts), reading
-- every row of the workspace for each inserted row, and the pooled connection kept that plan for its lifetime:
-- a 10,000-row import's batches grew from ~10 ms to ~250 ms (issue 24's bench went from 1.07x of the rate
-- limit's floor to 3.9x once imports always carry an external_id of 44 characters, which made the unique index
-- the larger one). A custom plan per row is an index probe of (workspace_id, external_id) whatever the
-- statistics say, for the cost of planning one small statement.
ALTER FUNCTION expense_internal.check_external_id_free() SET plan_cache_mode = force_custom_plan;
