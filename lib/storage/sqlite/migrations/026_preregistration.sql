-- Pre-registration (lib/preregistration/, docs/preregistration.md): each locked version of a study's analysis
-- plan with the hashes of the plan and of what defines the study as run, and each deviation found after a lock,
-- once per (study, version, kind, file, field). A locked version is never changed; a deviation only gains a
-- justification. Twin of lib/storage/postgres/migrations/026_preregistration.sql.
CREATE TABLE preregistrations (
  study_id   TEXT NOT NULL,
  version    INTEGER NOT NULL CHECK (version >= 1),
  plan_hash  TEXT NOT NULL,
  study_hash TEXT NOT NULL,
  locked_at  INTEGER NOT NULL,
  locked_by  TEXT NOT NULL,
  document   TEXT NOT NULL,
  PRIMARY KEY (study_id, version)
);
CREATE TRIGGER preregistrations_no_update BEFORE UPDATE ON preregistrations BEGIN SELECT RAISE(ABORT, 'a locked pre-registration cannot be edited; lock a new version'); END;

CREATE TABLE preregistration_deviations (
  id            INTEGER PRIMARY KEY,
  study_id      TEXT NOT NULL,
  version       INTEGER NOT NULL,
  kind          TEXT NOT NULL,
  file          TEXT NOT NULL,
  field         TEXT NOT NULL,
  message       TEXT NOT NULL,
  detected_at   INTEGER NOT NULL,
  justification TEXT,
  justified_at  INTEGER,
  justified_by  TEXT,
  FOREIGN KEY (study_id, version) REFERENCES preregistrations(study_id, version)
);
CREATE UNIQUE INDEX preregistration_deviations_once ON preregistration_deviations(study_id, version, kind, file, field);
