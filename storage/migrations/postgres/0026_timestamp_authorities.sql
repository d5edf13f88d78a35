-- The certificates of the timestamp authorities the service's own timestamps carry (by SHA-256), PEM: verify
-- trusts them for timestamps (never for signatures), so the service's B-LTA files date their signatures.
CREATE TABLE timestamp_authorities (
    sha256 TEXT PRIMARY KEY,
    cert_pem TEXT NOT NULL,
    first_seen_at TIMESTAMPTZ NOT NULL
);
