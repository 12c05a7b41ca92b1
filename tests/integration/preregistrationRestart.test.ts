/**
 * Lock, edit a system prompt, restart (issue 24): the edited study still starts (data collection never stops),
 * the deviation is recorded during start-up, before the server takes its first session, naming the file and
 * field, and a further restart records nothing more. Real servers on both engines.
 */
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/app';
import { lockPreregistration } from '../../lib/preregistration';
import { createTestStoreTarget, STORE_ENGINES } from '../support/testStores';
import { copyVisualizationStudy } from '../support/preregistrationFixture';

const files = copyVisualizationStudy();
afterAll(() => files.remove());

describe.each(STORE_ENGINES)('pre-registration across a restart (%s)', (engine) => {
  it('records the edited system prompt once, at start-up', async () => {
    const target = await createTestStoreTarget(engine, 'prereg restart');
    const start = (): Promise<RunningServer> =>
      startServer({ ...target, port: 0, studiesDir: files.studiesDir, surveysDir: files.surveysDir, offlineReplyDelayMs: 0, env: {}, logger: pino({ level: 'silent' }) });

    let server = await start();
    const study = server.config.studies.get('visualization')!;
    const locked = await lockPreregistration({ store: server.store, study, survey: server.config.surveys.get(study.survey), actor: 'researcher', now: Date.now(), outFile: null });
    expect(locked.outcome).toBe('locked');
    await server.close();

    files.edit(files.studyFile, 'Once you understand, answer\n      concisely', 'Once you understand, answer\n      briefly');
    server = await start();
    // Recorded by startServer itself: nothing has run on this server since it returned.
    const deviations = await server.store.preregistrations.deviations('visualization');
    expect(deviations.map((d) => `${d.file}: ${d.message}`)).toEqual(['studies/visualization.yaml: conditions.1.system_prompt changed after the lock']);
    const join = await fetch(`${server.url}/api/join`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ studyId: 'visualization', params: { PROLIFIC_PID: 'p-after-edit' } }) });
    expect(join.status).toBe(200);
    await server.close();

    server = await start();
    expect(await server.store.preregistrations.deviations('visualization')).toHaveLength(1);
    const audited = (await server.store.audit.list({ studyId: 'visualization' })).filter((a) => a.action === 'preregistration_deviation');
    expect(audited).toHaveLength(1);
    await server.close();
    files.edit(files.studyFile, 'answer\n      briefly', 'answer\n      concisely');
  }, 60_000);
});
