-- API keys kept, besides their hash, encrypted with a key derived from the service's secret key, so the console
-- can show a user their own keys again. Keys made before this have none (NULL) until rotated. Requests are
-- still authenticated by the hash alone.
ALTER TABLE api_keys ADD COLUMN key_sealed TEXT;
