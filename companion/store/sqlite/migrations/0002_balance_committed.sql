-- balance snapshots also keep what the companion had committed at that moment, so the
-- books can be reconciled against GET /credits/balance.
ALTER TABLE ledger ADD COLUMN committed INTEGER;
