-- Balanced assignment (server/services/assignment.ts) reads, at every join, how many non-pilot sessions of the study
-- consented per condition and per task. Counting those in `sessions` read every consented session of the study, so a
-- join cost grew with the study (27 ms for a join's two counts at 50,000 sessions, `npm run bench:balance`). The
-- counts are kept here instead, exact at every commit: the triggers below follow every insert, delete and change of a
-- session row that moves it in or out of a count, whichever code path (or db:copy) writes it. Derived state: db:copy
-- does not copy this table, the triggers rebuild it on the target. Twin: postgres/migrations/035_balance_counts.sql.
CREATE TABLE balance_counts (
  study_id   TEXT NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
  dimension  TEXT NOT NULL CHECK (dimension IN ('condition', 'task')),
  option_id  TEXT NOT NULL,
  consented  INTEGER NOT NULL,
  PRIMARY KEY (study_id, dimension, option_id)
);

INSERT INTO balance_counts (study_id, dimension, option_id, consented)
  SELECT study_id, 'condition', condition_id, COUNT(*) FROM sessions WHERE is_pilot = 0 AND consented_at IS NOT NULL GROUP BY study_id, condition_id;
INSERT INTO balance_counts (study_id, dimension, option_id, consented)
  SELECT study_id, 'task', task_id, COUNT(*) FROM sessions WHERE is_pilot = 0 AND consented_at IS NOT NULL GROUP BY study_id, task_id;

-- Each trigger touches the condition's row before the task's (on PostgreSQL, concurrent writers then take the rows'
-- locks in one order).
CREATE TRIGGER balance_counts_insert AFTER INSERT ON sessions
WHEN NEW.is_pilot = 0 AND NEW.consented_at IS NOT NULL
BEGIN
  INSERT INTO balance_counts (study_id, dimension, option_id, consented) VALUES (NEW.study_id, 'condition', NEW.condition_id, 1)
    ON CONFLICT (study_id, dimension, option_id) DO UPDATE SET consented = consented + 1;
  INSERT INTO balance_counts (study_id, dimension, option_id, consented) VALUES (NEW.study_id, 'task', NEW.task_id, 1)
    ON CONFLICT (study_id, dimension, option_id) DO UPDATE SET consented = consented + 1;
END;

CREATE TRIGGER balance_counts_delete AFTER DELETE ON sessions
WHEN OLD.is_pilot = 0 AND OLD.consented_at IS NOT NULL
BEGIN
  UPDATE balance_counts SET consented = consented - 1 WHERE study_id = OLD.study_id AND dimension = 'condition' AND option_id = OLD.condition_id;
  UPDATE balance_counts SET consented = consented - 1 WHERE study_id = OLD.study_id AND dimension = 'task' AND option_id = OLD.task_id;
END;

-- Only a change that can move the row between counts (a step change, the commonest update, does not fire it).
CREATE TRIGGER balance_counts_update AFTER UPDATE OF study_id, condition_id, task_id, is_pilot, consented_at ON sessions
WHEN (OLD.consented_at IS NULL) IS NOT (NEW.consented_at IS NULL) OR OLD.is_pilot IS NOT NEW.is_pilot
  OR OLD.study_id IS NOT NEW.study_id OR OLD.condition_id IS NOT NEW.condition_id OR OLD.task_id IS NOT NEW.task_id
BEGIN
  UPDATE balance_counts SET consented = consented - 1
    WHERE OLD.is_pilot = 0 AND OLD.consented_at IS NOT NULL AND study_id = OLD.study_id AND dimension = 'condition' AND option_id = OLD.condition_id;
  UPDATE balance_counts SET consented = consented - 1
    WHERE OLD.is_pilot = 0 AND OLD.consented_at IS NOT NULL AND study_id = OLD.study_id AND dimension = 'task' AND option_id = OLD.task_id;
  INSERT INTO balance_counts (study_id, dimension, option_id, consented) SELECT NEW.study_id, 'condition', NEW.condition_id, 1
    WHERE NEW.is_pilot = 0 AND NEW.consented_at IS NOT NULL
    ON CONFLICT (study_id, dimension, option_id) DO UPDATE SET consented = consented + 1;
  INSERT INTO balance_counts (study_id, dimension, option_id, consented) SELECT NEW.study_id, 'task', NEW.task_id, 1
    WHERE NEW.is_pilot = 0 AND NEW.consented_at IS NOT NULL
    ON CONFLICT (study_id, dimension, option_id) DO UPDATE SET consented = consented + 1;
END;

-- The other part of a count: visits still at the consent step, younger than the unconsented slot. Only those rows are
-- in this index, so reading the few created since the slot's start does not read the study's other sessions.
CREATE INDEX sessions_unconsented_fresh ON sessions(study_id, created_at) WHERE is_pilot = 0 AND consented_at IS NULL AND status = 'active';
