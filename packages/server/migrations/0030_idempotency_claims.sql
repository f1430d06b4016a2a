-- Idempotency-Key records of the SQL endpoints: which request holds a pending record (claim_id), and the
-- kept response as the exact text that was sent (jsonb would reorder its keys on replay).
ALTER TABLE expense_internal.idempotency_records
  ADD COLUMN claim_id uuid,
  ADD COLUMN response_body text;
