/** Pre-registration: the plan file, the lock, deviations (docs/preregistration.md). */
export { PLAN_FILE_SUFFIX, planFilePath, readPlanFile, planReferenceProblems, type ParsedPlan } from './planFile';
export { studyFingerprint, fingerprintHash, fingerprintChanges } from './fingerprint';
export { lockPreregistration, preregistrationFile, writePreregistrationJson, preregistrationJsonPath, NoPlanError, type LockInput } from './lock';
export { recordDeviations, stopDateEnd, type DeviationFinding } from './deviations';
export { checkPreregistrationsAtStart } from './startupCheck';
export { checkStoppingRuleAtJoin, forgetCachedLock, LOCK_CACHE_MS, type JoiningSession } from './joinCheck';
export { preregistrationStatus, needsLockBeforeLive } from './status';
export { recordAnalysisDeviations, type AnalysisDeviationInput, type AnalysisDeviationOutcome } from './analysisDeviations';
