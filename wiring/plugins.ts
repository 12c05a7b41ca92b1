/**
 * The plug-ins a Tandem server runs (server/plugins.ts), in mount order: the Wizard-of-Oz desk, the teamwork seat's
 * teammates, and the researcher side last (its catch-all answers unknown admin routes).
 */
import type { ServerPlugin } from '../server/plugins';
import { adminPlugin } from '../server/admin/mount';
import { wizardPlugin } from '../server/wizard/mount';
import { teamworkSeatProblems } from '../research/teamwork/seat/seatConditions';
import { createTeammateProvider } from '../research/teamwork/seat/teammateProvider';
import { researchTools } from './researchTools';

/**
 * People in the same seat as a model under test (docs/teamwork.md): a condition with a `teamwork:` block is answered
 * by the task's scripted teammates, and its task file is checked when the study loads.
 */
export const teamworkSeatPlugin: ServerPlugin = {
  name: 'teamwork-seat',
  studyChecks: [teamworkSeatProblems],
  conditionProvider: {
    answers: (condition) => condition.teamwork !== undefined,
    create: (condition, env, replyCache) => createTeammateProvider(condition.teamwork!, env, replyCache),
  },
};

/** Every plug-in, for `npm start` and the tests that start a whole platform. */
export function tandemPlugins(env: NodeJS.ProcessEnv = process.env): ServerPlugin[] {
  return [wizardPlugin(), teamworkSeatPlugin, adminPlugin(researchTools, env)];
}
