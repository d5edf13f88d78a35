-- Signing out of the console ends every session of the user: a session holds the epoch it began in, and
-- signing out moves the user to the next.
ALTER TABLE users ADD COLUMN session_epoch INTEGER NOT NULL DEFAULT 0;
