-- signature_origins_of --
-- How the signature files with the given uuids were made, and their reasons.
SELECT blob_uuid, made_as, reason FROM signature_origins WHERE blob_uuid = ANY(CAST(:uuids AS TEXT[]))
