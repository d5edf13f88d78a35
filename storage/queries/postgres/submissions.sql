-- lock_submission --
-- One submission by id, locked until the transaction ends so signer actions on it take turns
-- (two last signers completing at once must see each other: exactly one completes the submission).
SELECT * FROM submissions WHERE id = :id FOR UPDATE

-- list_submitters_of_many --
-- The signers of an account's submissions with the given ids (a JSON array; one query for a list page).
SELECT * FROM submitters
WHERE account_id = :account_id AND submission_id IN (SELECT CAST(jsonb_array_elements_text(:ids) AS BIGINT))
ORDER BY submission_id, position, id
