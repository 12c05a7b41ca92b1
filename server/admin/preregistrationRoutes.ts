/**
 * The study page's pre-registration (docs/preregistration.md): its status with the deviations (detected on each
 * read), the Lock button, and a researcher's justification of a deviation. Behind the admin guard (session + CSRF).
 *
 *   GET  /api/admin/studies/:studyId/preregistration                                  → PreregistrationStatus
 *   POST /api/admin/studies/:studyId/preregistration/lock                             → LockResult
 *   POST /api/admin/studies/:studyId/preregistration/deviations/:id/justification     JustificationRequest → EmptyReply
 */
import express, { type Router } from 'express';
import type { Logger } from 'pino';
import type { Store } from '../../lib/storage';
import { ConfigError, type LoadedConfig } from '../../lib/studyFiles/studyConfig';
import { lockPreregistration, NoPlanError, preregistrationJsonPath, preregistrationStatus } from '../../lib/preregistration';
import { JustificationRequest, type LockResult, type PreregistrationStatus } from '../../common/preregistration';
import type { EmptyReply } from '../../common/admin';
import { sendFail, sendOk, sendZodFail } from '../http/respond';

export interface PreregistrationRouteDeps {
  store: Store;
  config: LoadedConfig;
  dataDir: string;
  log: Logger;
  now: () => number;
}

export function registerPreregistrationRoutes(guarded: Router, deps: PreregistrationRouteDeps): void {
  const { store, config, now } = deps;
  const json = express.json({ limit: '16kb' });
  const studyOf = (id: string) => config.studies.get(id);

  guarded.get('/api/admin/studies/:studyId/preregistration', async (req, res) => {
    const study = studyOf(String(req.params.studyId));
    if (!study) return sendFail(res, 'not_found', `no study "${String(req.params.studyId)}" is loaded`);
    const status: PreregistrationStatus = await preregistrationStatus(store, { study, survey: config.surveys.get(study.survey), now: now() });
    sendOk(res, status);
  });

  guarded.post('/api/admin/studies/:studyId/preregistration/lock', async (req, res) => {
    const study = studyOf(String(req.params.studyId));
    if (!study) return sendFail(res, 'not_found', `no study "${String(req.params.studyId)}" is loaded`);
    try {
      const result: LockResult = await lockPreregistration({
        store,
        study,
        survey: config.surveys.get(study.survey),
        actor: req.admin!.actor,
        now: now(),
        outFile: preregistrationJsonPath(deps.dataDir, study.id),
      });
      sendOk(res, result);
    } catch (err) {
      if (err instanceof ConfigError) return sendFail(res, 'invalid_input', err.message.replace(/^Invalid configuration/, 'The plan cannot be locked'));
      if (err instanceof NoPlanError) return sendFail(res, 'not_found', err.message);
      deps.log.error({ err, study: study.id }, 'pre-registration lock failed');
      sendFail(res, 'internal', 'the lock failed; see the server log');
    }
  });

  guarded.post('/api/admin/studies/:studyId/preregistration/deviations/:deviationId/justification', json, async (req, res) => {
    const studyId = String(req.params.studyId);
    const id = Number(req.params.deviationId);
    if (!Number.isSafeInteger(id)) return sendFail(res, 'not_found', 'no such deviation', 'deviationId');
    const parsed = JustificationRequest.safeParse(req.body);
    if (!parsed.success) return sendZodFail(res, parsed.error, 'POST justification');
    const done = await store.transaction(async (tx) => {
      const ok = await tx.preregistrations.justify(studyId, id, parsed.data.justification, req.admin!.actor, now());
      if (ok) await tx.audit.append({ at: now(), actor: req.admin!.actor, action: 'preregistration_justification', studyId, details: { deviation: id } });
      return ok;
    });
    if (!done) return sendFail(res, 'not_found', `no deviation ${id} of "${studyId}"`);
    const reply: EmptyReply = {};
    sendOk(res, reply);
  });
}
