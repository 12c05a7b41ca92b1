-- Twin of lib/storage/postgres/migrations/039_submit_survey.sql, which adds the PostgreSQL function
-- tandem_submit_survey (a survey's submission in one round trip). SQLite needs no schema change: its
-- Store.submitSurvey runs the same change and inserts in one synchronous transaction
-- (lib/storage/sqlite/surveySubmit.ts). Nothing to apply; the number is kept so both engines end at one version.
SELECT 1;
