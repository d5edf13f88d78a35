-- remember_timestamp_authority --
-- A timestamp authority's certificate the service stamped with; kept once.
INSERT INTO timestamp_authorities (sha256, cert_pem, first_seen_at)
VALUES (:sha256, :cert_pem, :now)
ON CONFLICT (sha256) DO NOTHING

-- list_timestamp_authorities --
-- Every timestamp authority's certificate the service stamped with, oldest first.
SELECT cert_pem FROM timestamp_authorities ORDER BY first_seen_at, sha256
