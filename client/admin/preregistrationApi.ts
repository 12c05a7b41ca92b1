import { EmptyReply } from '../../common/admin';
import { JustificationRequest, LockResult, PreregistrationStatus } from '../../common/preregistration';
import { adminGet, adminPost } from './api';

const base = (studyId: string) => `/api/admin/studies/${encodeURIComponent(studyId)}/preregistration`;

/** The study page's pre-registration routes (server/admin/preregistrationRoutes.ts). */
export const preregistrationApi = {
  status: (studyId: string) => adminGet(base(studyId), PreregistrationStatus),
  lock: (studyId: string) => adminPost(`${base(studyId)}/lock`, LockResult),
  justify: (studyId: string, deviationId: number, body: JustificationRequest) =>
    adminPost(`${base(studyId)}/deviations/${deviationId}/justification`, EmptyReply, body, JustificationRequest),
};
