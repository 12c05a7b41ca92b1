/**
 * Who may label a run. A model under test on a real endpoint is never labelled by the offline keyword
 * judge behind the user's back: it needs --referee and --second-rater named (offline judges may be named
 * on purpose). Two raters that are the same model agree with themselves by construction, so that needs
 * --same-raters, and the report then says the agreement validates nothing. The offline reference models
 * with the default offline judges need neither: they are a demonstration, and the report says so too.
 */
import { OFFLINE_JUDGE } from '../models/offlineModels';
import { ModelClients } from '../runner/clients';

export interface JudgeChoice {
  subject: string;
  referee: string;
  second: string;
  /** The --referee / --second-rater flags were given (not defaults). */
  refereeNamed: boolean;
  secondNamed: boolean;
  sameRaters: boolean;
}

/** Why this choice of judges is refused (a message naming the flags), or null. */
export function judgeChoiceProblem(c: JudgeChoice): string | null {
  if (!ModelClients.isOffline(c.subject) && (!c.refereeNamed || !c.secondNamed)) {
    const missing = [!c.refereeNamed ? '--referee' : null, !c.secondNamed ? '--second-rater' : null].filter(Boolean).join(' and ');
    return `--referee: model "${c.subject}" is not an offline reference model, so name its judges: ${missing} (e.g. --referee <model> --second-rater <another model>); the offline keyword judge (${OFFLINE_JUDGE}) labels it only when named`;
  }
  const offlineDemo = ModelClients.isOffline(c.subject) && c.referee === OFFLINE_JUDGE && !c.refereeNamed && !c.secondNamed;
  if (c.referee === c.second && !c.sameRaters && !offlineDemo) {
    return `--second-rater: the referee and the second rater are the same model ("${c.referee}"), so their agreement would validate nothing; name two different models, or pass --same-raters to accept that`;
  }
  return null;
}
