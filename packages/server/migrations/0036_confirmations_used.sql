-- Single use of confirmation tokens: a token's id is recorded in the transaction of the write it commits (so it is
-- used exactly when the write committed; a concurrent second use waits on the key and then finds it taken), and
-- kept until the token's expiry, after which the token is refused anyway and the row is purged.
CREATE TABLE expense_internal.confirmations_used (
  token_id   text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
CREATE INDEX confirmations_used_expires_idx ON expense_internal.confirmations_used (expires_at);
