-- PostgreSQL twin of lib/storage/sqlite/migrations/012_judgement_images.sql: which images a judge sample showed
-- the model (JSON array of {field, mediaType, bytes, sha256}; NULL for text-only samples).
ALTER TABLE judgements ADD COLUMN images TEXT COLLATE "C";
