-- lock_submission --
-- One submission by id, locked until the transaction ends so signer actions on it take turns
-- (two last signers completing at once must see each other: exactly one completes the submission).
SELECT * FROM submissions WHERE id = :id FOR UPDATE
