-- The generated root CA's private key, kept so that the service can issue the CRL its leaf names, encrypted with
-- a key derived from the service's secret key (signsvc/results/ca_key.py); null for a chain generated before it
-- was kept and for a configured PKCS#12.
ALTER TABLE signing_certificates ADD COLUMN ca_key_sealed TEXT;

-- The current CRL of each CA whose key the service holds (by the CA certificate's SHA-256), DER as base64:
-- made once and renewed by a job, so every process serves and embeds the same one.
CREATE TABLE signing_crls (
    issuer_sha256 TEXT PRIMARY KEY,
    crl TEXT NOT NULL,
    this_update TIMESTAMPTZ NOT NULL,
    next_update TIMESTAMPTZ NOT NULL
);

-- The PAdES level a signed file reached (B-B, B-T, B-LT, B-LTA), and when its archive timestamp is renewed.
ALTER TABLE result_documents ADD COLUMN pades_level TEXT;
ALTER TABLE result_documents ADD COLUMN timestamp_renew_at TIMESTAMPTZ;
CREATE INDEX result_documents_timestamp_renew_at ON result_documents (timestamp_renew_at)
    WHERE timestamp_renew_at IS NOT NULL;

-- Earlier versions of result documents whose archive timestamp was renewed: still files the service issued.
CREATE TABLE result_document_versions (
    sha256 TEXT NOT NULL,
    result_document_id BIGINT NOT NULL REFERENCES result_documents (id) ON DELETE CASCADE,
    PRIMARY KEY (sha256, result_document_id)
);

-- The same for the certificate of a consent (sealed like a result document).
ALTER TABLE consents ADD COLUMN certificate_pades_level TEXT;
ALTER TABLE consents ADD COLUMN certificate_timestamp_renew_at TIMESTAMPTZ;
CREATE INDEX consents_certificate_timestamp_renew_at ON consents (certificate_timestamp_renew_at)
    WHERE certificate_timestamp_renew_at IS NOT NULL;
