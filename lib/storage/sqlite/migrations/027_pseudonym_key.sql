-- The fingerprint of the installation's pseudonym key (DATA_DIR/secrets/pseudonym.key; lib/pseudonym.ts),
-- recorded at its first use: a command or node whose key does not match, or that would create a new key for
-- a database that already has one, stops instead of writing other pseudonyms. One row at most.
-- Twin of lib/storage/postgres/migrations/027_pseudonym_key.sql.
CREATE TABLE pseudonym_key (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  fingerprint TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
