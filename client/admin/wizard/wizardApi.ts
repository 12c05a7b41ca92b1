import { z } from 'zod';
import { WizardQueue, WizardReviewDetail, WizardReviewOutcome, WizardUse, WizardSendRequest, WizardSent } from '../../../common/wizard';
import { WizardGroupAgents, WizardGroupSaid, WizardGroupSay } from '../../../common/groupWizard';
import { adminGet, adminPost } from '../api';

const review = (replyId: string) => `/api/admin/wizard/reviews/${encodeURIComponent(replyId)}`;
const Empty = z.object({}).passthrough();

/** The wizard console's routes (server/wizard/routes.ts), validated against common/wizard.ts. */
export const wizardApi = {
  uses: (studyId: string) => adminGet(`/api/admin/wizard/studies/${encodeURIComponent(studyId)}/uses`, WizardUse),
  queue: (studyId: string) => adminGet(`/api/admin/wizard/studies/${encodeURIComponent(studyId)}/queue`, WizardQueue),
  review: (replyId: string) => adminGet(review(replyId), WizardReviewDetail),
  outcome: (replyId: string) => adminGet(`${review(replyId)}/outcome`, WizardReviewOutcome),
  claim: (replyId: string) => adminPost(`${review(replyId)}/claim`, Empty),
  release: (replyId: string) => adminPost(`${review(replyId)}/release`, Empty),
  send: (replyId: string, body: WizardSendRequest) => adminPost(`${review(replyId)}/send`, WizardSent, body, WizardSendRequest),
  discard: (replyId: string) => adminPost(`${review(replyId)}/discard`, Empty),
  groupAgents: (studyId: string) => adminGet(`/api/admin/wizard/studies/${encodeURIComponent(studyId)}/group-agents`, WizardGroupAgents),
  groupSay: (groupId: string, body: WizardGroupSay) => adminPost(`/api/admin/wizard/groups/${encodeURIComponent(groupId)}/say`, WizardGroupSaid, body, WizardGroupSay),
};
