-- A submitter's own documents are kind `submitter` (they were `signer`): one word for the signing party.
UPDATE result_documents SET kind = 'submitter' WHERE kind = 'signer';
