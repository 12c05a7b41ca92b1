-- A streaming reply's crash checkpoint in parts: the first checkpoint writes the text so far into reply_progress,
-- each later one appends only what streamed since, as one row here (keyed by where it starts in the reply's text).
-- Rewriting the whole text at every checkpoint wrote the square of a reply's length (a 2000-token reply, ~14 KB
-- checkpointed ~35 times, ~250 KB); appending writes it once. Reading a checkpoint (ReplyProgressRepo.get) joins the
-- row's text with its parts in order. Deleted with its reply_progress row.
CREATE TABLE reply_progress_parts (
  reply_id   TEXT NOT NULL REFERENCES reply_progress(reply_id) ON DELETE CASCADE,
  text_from  INTEGER NOT NULL,                    -- where this part starts in the reply's text (UTF-16 code units)
  text       TEXT NOT NULL,                       -- what streamed from there up to this checkpoint
  updated_at INTEGER NOT NULL,                    -- server ms UTC of this checkpoint
  PRIMARY KEY (reply_id, text_from)
);
