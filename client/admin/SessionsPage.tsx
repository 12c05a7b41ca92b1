import { useCallback, useEffect, useMemo, useState } from 'react';
import type { StudySummary } from '../../common/admin';
import type { SessionListPage, SessionListSort } from '../../common/adminSessionList';
import { adminApi } from './api';
import { AdminLink, PageHeading, pageTitle } from './AdminLink';
import { formatCount, formatDuration, formatTime, outcomeLabel } from './format';
import { SessionFilters, EMPTY_FILTERS, filtersFromSearch, filtersToQuery, type Filters } from './SessionFilters';
import { useAdminSocket } from './useAdminSocket';
import { useLiveVersion } from './useLiveVersion';

const PAGE_SIZES = [25, 50, 100, 200];

interface Column {
  label: string;
  sort?: SessionListSort;
  numeric?: boolean;
}
const COLUMNS: Column[] = [
  { label: 'session' },
  { label: 'pseudonym' },
  { label: 'condition', sort: 'condition' },
  { label: 'outcome', sort: 'status' },
  { label: 'started', sort: 'started' },
  { label: 'time on task', sort: 'time_on_task', numeric: true },
  { label: 'messages', sort: 'messages', numeric: true },
  { label: 'cost C', sort: 'cost', numeric: true },
  { label: 'Q', sort: 'quality', numeric: true },
];

/**
 * Every session of one study (not only the live monitor's last 15 minutes): paged, sortable, filtered by
 * outcome, condition, pilot, quality and date, searchable by the pseudonym seen in an export. The view
 * is kept in the address (shareable, survives a reload) and refreshes when the live monitor moves.
 */
export function SessionsPage({ studyId }: { studyId: string }) {
  const initial = useMemo(() => filtersFromSearch(window.location.search), []);
  const [filters, setFilters] = useState<Filters>(initial.filters);
  const [sort, setSort] = useState<{ by: SessionListSort; order: 'asc' | 'desc' }>(initial.sort);
  const [page, setPage] = useState(initial.page);
  const [pageSize, setPageSize] = useState(initial.pageSize);
  const [data, setData] = useState<SessionListPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [study, setStudy] = useState<StudySummary | null>(null);
  const live = useAdminSocket(studyId);
  const version = useLiveVersion(live.snapshot, live.runs);

  useEffect(() => {
    document.title = pageTitle('Sessions', study?.title ?? studyId);
  }, [study?.title, studyId]);
  useEffect(() => {
    adminApi.studies().then((list) => setStudy(list.find((s) => s.id === studyId) ?? null), () => undefined);
  }, [studyId]);

  const query = useMemo(
    () => ({ ...filtersToQuery(filters), sort: sort.by, order: sort.order, page: String(page), pageSize: String(pageSize) }),
    [filters, sort, page, pageSize],
  );
  useEffect(() => {
    let cancelled = false;
    // The address keeps the view (without the defaults) so it can be shared or reloaded.
    const shown = new URLSearchParams(query);
    if (shown.get('page') === '1') shown.delete('page');
    if (shown.get('pageSize') === '50') shown.delete('pageSize');
    if (shown.get('sort') === 'started' && shown.get('order') === 'desc') (shown.delete('sort'), shown.delete('order'));
    window.history.replaceState(null, '', `${window.location.pathname}${shown.size ? `?${shown}` : ''}`);
    adminApi.sessionList(studyId, query).then(
      (d) => {
        if (cancelled) return;
        setData(d);
        setError(null);
      },
      (e: Error) => !cancelled && setError(e.message),
    );
    return () => {
      cancelled = true;
    };
  }, [studyId, query, version]);

  const changeFilters = useCallback((next: Filters) => {
    setFilters(next);
    setPage(1);
  }, []);
  const sortBy = (by: SessionListSort) => {
    setSort((current) => (current.by === by ? { by, order: current.order === 'asc' ? 'desc' : 'asc' } : { by, order: by === 'condition' || by === 'status' ? 'asc' : 'desc' }));
    setPage(1);
  };

  const pages = data ? Math.max(1, Math.ceil(data.total / data.pageSize)) : 1;
  const first = data && data.total > 0 ? (data.page - 1) * data.pageSize + 1 : 0;
  const last = data ? Math.min(data.total, data.page * data.pageSize) : 0;

  return (
    <>
      <p className="admin-back">
        <AdminLink to={`/admin/studies/${studyId}`}>← study {studyId}</AdminLink>
      </p>
      <PageHeading>Sessions of {study?.title ?? studyId}</PageHeading>
      <SessionFilters
        filters={filters}
        conditions={study?.conditions ?? []}
        onChange={changeFilters}
        onReset={() => changeFilters(EMPTY_FILTERS)}
      />
      {error && <p className="error-box" role="alert">{error}</p>}
      <section className="card" aria-labelledby="sessions-title">
        <div className="admin-heading">
          <h2 id="sessions-title">Sessions</h2>
          <p className="hint" role="status" data-testid="sessions-count">
            {data === null
              ? 'Loading…'
              : data.total === 0
                ? 'No session matches (searched pseudonyms, session ids and platform ids such as a Prolific ID, typed exactly).'
                : `${formatCount(first)}–${formatCount(last)} of ${formatCount(data.total)}${data.matchedPlatformId ? ' · found by platform id (shown by pseudonym only)' : ''}`}
          </p>
        </div>
        <div className="admin-scroll" tabIndex={0} role="region" aria-label="Sessions table (scrolls sideways on small screens)">
          <table className="admin-table" data-testid="sessions-table">
            <caption className="visually-hidden">Sessions, sortable by the column buttons</caption>
            <thead>
              <tr>
                {COLUMNS.map((c) => {
                  const active = c.sort !== undefined && sort.by === c.sort;
                  return (
                    <th key={c.label} scope="col" className={c.numeric ? 'num' : undefined} aria-sort={active ? (sort.order === 'asc' ? 'ascending' : 'descending') : undefined}>
                      {c.sort ? (
                        <button type="button" className="admin-sort" onClick={() => sortBy(c.sort!)}>
                          {c.label}
                          <span aria-hidden="true">{active ? (sort.order === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                        </button>
                      ) : (
                        c.label
                      )}
                    </th>
                  );
                })}
              </tr>
            </thead>
            <tbody>
              {data?.rows.map((r) => (
                <tr key={r.sessionId} data-testid="session-row">
                  <th scope="row">
                    <AdminLink to={`/admin/sessions/${r.sessionId}`} className="admin-id">{r.sessionId.slice(0, 8)}</AdminLink>
                  </th>
                  <td className="admin-id">{r.pseudonym}</td>
                  <td>{r.conditionId}</td>
                  <td data-testid="session-outcome">
                    {outcomeLabel(r.status)}
                    {r.isPilot && <span className="status-badge status-pilot">pilot</span>}
                  </td>
                  <td className="admin-nowrap">{formatTime(r.createdAt)}</td>
                  <td className="num">{r.timeOnTaskMs === null ? '—' : formatDuration(r.timeOnTaskMs)}</td>
                  <td className="num">{r.messages}</td>
                  <td className="num">{formatCount(r.cost)}</td>
                  <td className="num">{r.quality ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <nav className="admin-pager" aria-label="Pages of sessions">
          <button type="button" className="secondary" onClick={() => setPage((p) => Math.max(1, p - 1))} disabled={page <= 1}>
            ← Previous
          </button>
          <span>
            Page {data?.page ?? page} of {pages}
          </span>
          <button type="button" className="secondary" onClick={() => setPage((p) => Math.min(pages, p + 1))} disabled={page >= pages}>
            Next →
          </button>
          <label htmlFor="page-size">Per page</label>
          <select
            id="page-size"
            value={pageSize}
            onChange={(e) => {
              setPageSize(Number(e.target.value));
              setPage(1);
            }}
          >
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </nav>
      </section>
    </>
  );
}
