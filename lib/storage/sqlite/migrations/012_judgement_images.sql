-- Which images a judge sample showed the model (judge --study --images attach), so a study-mode
-- sample records them as a dataset-mode sample does in judgements.jsonl.
-- JSON array of {field, mediaType, bytes, sha256} (sha256 of the upload's bytes, as in the uploads
-- table). '[]': the judge ran with --images attach but sent no image (the task has no image field,
-- or the session's image could not be attached: failure_reason says why). NULL: the judge ran
-- text-only (--images describe), or the sample was stored before this migration (then
-- template_hash tells whether images were attached, and the cached request under cache_key lists them).
ALTER TABLE judgements ADD COLUMN images TEXT;
