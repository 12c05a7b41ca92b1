import { useState } from 'react';
import type { PilotFilter } from '../../common/adminSessionList';
import { adminApi } from './api';

/**
 * The study's plots (enrolment per hour, condition balance, completion funnel, time on task, cost, and Q
 * and Pz per condition once judged): vega-lite rendered to SVG on the server, shown in a sandboxed frame
 * without scripts. `version` goes up when the live monitor or a run reports a change, which reloads it.
 */
export function DashboardPlots({ studyId, version }: { studyId: string; version: number }) {
  const [pilot, setPilot] = useState<PilotFilter>('exclude');
  return (
    <section className="card" aria-labelledby="plots-title">
      <div className="admin-heading">
        <h2 id="plots-title">Dashboard</h2>
        <div className="admin-inline-form">
          <label htmlFor="plots-pilot">Pilot sessions</label>
          <select id="plots-pilot" value={pilot} onChange={(e) => setPilot(e.target.value as PilotFilter)}>
            <option value="exclude">left out</option>
            <option value="include">included</option>
            <option value="only">only pilots</option>
          </select>
        </div>
      </div>
      <p className="hint">Updated as sessions move (at most every few seconds) and after each judge run. Times are UTC.</p>
      <iframe
        className="admin-plots"
        title="Dashboard plots"
        sandbox=""
        src={adminApi.dashboardPlotsUrl(studyId, pilot, version)}
        data-testid="dashboard-plots"
      />
    </section>
  );
}
