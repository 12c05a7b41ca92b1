-- PostgreSQL twin of lib/storage/sqlite/migrations/035_balance_counts.sql (the consented sessions per condition and
-- per task, kept by triggers, so a join's balanced assignment does not count the study's sessions).
CREATE TABLE balance_counts (
  study_id   TEXT COLLATE "C" NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
  dimension  TEXT COLLATE "C" NOT NULL CHECK (dimension IN ('condition', 'task')),
  option_id  TEXT COLLATE "C" NOT NULL,
  consented  INTEGER NOT NULL,
  PRIMARY KEY (study_id, dimension, option_id)
);

INSERT INTO balance_counts (study_id, dimension, option_id, consented)
  SELECT study_id, 'condition', condition_id, COUNT(*) FROM sessions WHERE is_pilot = 0 AND consented_at IS NOT NULL GROUP BY study_id, condition_id;
INSERT INTO balance_counts (study_id, dimension, option_id, consented)
  SELECT study_id, 'task', task_id, COUNT(*) FROM sessions WHERE is_pilot = 0 AND consented_at IS NOT NULL GROUP BY study_id, task_id;

-- The condition's row before the task's, in every path: concurrent writers take the two rows' locks in one order.
CREATE FUNCTION tandem_balance_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.is_pilot = 0 AND OLD.consented_at IS NOT NULL THEN
    UPDATE balance_counts SET consented = consented - 1 WHERE study_id = OLD.study_id AND dimension = 'condition' AND option_id = OLD.condition_id;
    UPDATE balance_counts SET consented = consented - 1 WHERE study_id = OLD.study_id AND dimension = 'task' AND option_id = OLD.task_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.is_pilot = 0 AND NEW.consented_at IS NOT NULL THEN
    -- An UPDATE first: the row exists after an option's first consent, and ON CONFLICT's insert attempt costs more.
    UPDATE balance_counts SET consented = consented + 1 WHERE study_id = NEW.study_id AND dimension = 'condition' AND option_id = NEW.condition_id;
    IF NOT FOUND THEN
      INSERT INTO balance_counts (study_id, dimension, option_id, consented) VALUES (NEW.study_id, 'condition', NEW.condition_id, 1)
        ON CONFLICT (study_id, dimension, option_id) DO UPDATE SET consented = balance_counts.consented + 1;
    END IF;
    UPDATE balance_counts SET consented = consented + 1 WHERE study_id = NEW.study_id AND dimension = 'task' AND option_id = NEW.task_id;
    IF NOT FOUND THEN
      INSERT INTO balance_counts (study_id, dimension, option_id, consented) VALUES (NEW.study_id, 'task', NEW.task_id, 1)
        ON CONFLICT (study_id, dimension, option_id) DO UPDATE SET consented = balance_counts.consented + 1;
    END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER balance_counts_insert AFTER INSERT ON sessions
  FOR EACH ROW WHEN (NEW.is_pilot = 0 AND NEW.consented_at IS NOT NULL) EXECUTE FUNCTION tandem_balance_counts();
CREATE TRIGGER balance_counts_delete AFTER DELETE ON sessions
  FOR EACH ROW WHEN (OLD.is_pilot = 0 AND OLD.consented_at IS NOT NULL) EXECUTE FUNCTION tandem_balance_counts();
-- tandem_change_session sets consented_at on every change (to itself when the patch has none): the WHEN clause keeps
-- a step change from firing it.
CREATE TRIGGER balance_counts_update AFTER UPDATE OF study_id, condition_id, task_id, is_pilot, consented_at ON sessions
  FOR EACH ROW WHEN ((OLD.consented_at IS NULL) IS DISTINCT FROM (NEW.consented_at IS NULL) OR OLD.is_pilot IS DISTINCT FROM NEW.is_pilot
    OR OLD.study_id IS DISTINCT FROM NEW.study_id OR OLD.condition_id IS DISTINCT FROM NEW.condition_id OR OLD.task_id IS DISTINCT FROM NEW.task_id)
  EXECUTE FUNCTION tandem_balance_counts();

CREATE INDEX sessions_unconsented_fresh ON sessions(study_id, created_at) WHERE is_pilot = 0 AND consented_at IS NULL AND status = 'active';
