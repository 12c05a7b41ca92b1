import { useEffect, useState } from 'react';
import { SESSION_LIST_SORTS, type SessionListSort } from '../../common/adminSessionList';
import { OUTCOME_LABELS } from './format';

/** The sessions page's filters, as the form holds them (empty string: not set). */
export interface Filters {
  q: string;
  status: string;
  condition: string;
  pilot: 'include' | 'exclude' | 'only';
  judged: 'any' | 'judged' | 'unjudged';
  qualityMin: string;
  qualityMax: string;
  from: string;
  to: string;
}

export const EMPTY_FILTERS: Filters = { q: '', status: '', condition: '', pilot: 'include', judged: 'any', qualityMin: '', qualityMax: '', from: '', to: '' };

/** Only the parameters that are set (the server applies its defaults to the rest). */
export function filtersToQuery(f: Filters): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(f)) if (value !== '' && value !== EMPTY_FILTERS[key as keyof Filters]) out[key] = value.trim();
  return out;
}

/** The view kept in the address: filters, sort and page. Unknown or malformed values fall back to defaults. */
export function filtersFromSearch(search: string): { filters: Filters; sort: { by: SessionListSort; order: 'asc' | 'desc' }; page: number; pageSize: number } {
  const p = new URLSearchParams(search);
  const pick = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const v = p.get(name);
    return v !== null && (allowed as readonly string[]).includes(v) ? (v as T) : fallback;
  };
  const filters: Filters = {
    q: p.get('q') ?? '',
    status: pick('status', ['', 'active', 'completed', 'declined', 'timed_out'], ''),
    condition: p.get('condition') ?? '',
    pilot: pick('pilot', ['include', 'exclude', 'only'], 'include'),
    judged: pick('judged', ['any', 'judged', 'unjudged'], 'any'),
    qualityMin: p.get('qualityMin') ?? '',
    qualityMax: p.get('qualityMax') ?? '',
    from: p.get('from') ?? '',
    to: p.get('to') ?? '',
  };
  const page = Math.max(1, Math.floor(Number(p.get('page') ?? 1)) || 1);
  const pageSize = [25, 50, 100, 200].includes(Number(p.get('pageSize'))) ? Number(p.get('pageSize')) : 50;
  return { filters, sort: { by: pick('sort', SESSION_LIST_SORTS, 'started'), order: pick('order', ['asc', 'desc'], 'desc') }, page, pageSize };
}

/** The filter form; the search box applies after a short pause in typing, every other control at once. */
export function SessionFilters({
  filters,
  conditions,
  onChange,
  onReset,
}: {
  filters: Filters;
  conditions: string[];
  onChange: (next: Filters) => void;
  onReset: () => void;
}) {
  const [search, setSearch] = useState(filters.q);
  useEffect(() => setSearch(filters.q), [filters.q]);
  useEffect(() => {
    if (search === filters.q) return;
    const timer = setTimeout(() => onChange({ ...filters, q: search }), 300);
    return () => clearTimeout(timer);
  }, [search, filters, onChange]);
  const set = (key: keyof Filters) => (e: { target: { value: string } }) => onChange({ ...filters, [key]: e.target.value });

  return (
    <section className="card" aria-labelledby="filters-title">
      <h2 id="filters-title" className="visually-hidden">Filters</h2>
      <form className="admin-filters" role="search" onSubmit={(e) => (e.preventDefault(), onChange({ ...filters, q: search }))}>
        <div className="admin-filter admin-filter-wide">
          <label htmlFor="f-q">Pseudonym, session id or platform id</label>
          <input id="f-q" type="search" value={search} placeholder="p3f2a…, a session id, or a Prolific ID" onChange={(e) => setSearch(e.target.value)} />
        </div>
        <div className="admin-filter">
          <label htmlFor="f-status">Outcome</label>
          <select id="f-status" value={filters.status} onChange={set('status')}>
            <option value="">any</option>
            {Object.entries(OUTCOME_LABELS).map(([value, label]) => (
              <option key={value} value={value}>{label}</option>
            ))}
          </select>
        </div>
        <div className="admin-filter">
          <label htmlFor="f-condition">Condition</label>
          <select id="f-condition" value={filters.condition} onChange={set('condition')}>
            <option value="">any</option>
            {conditions.map((c) => (
              <option key={c} value={c}>{c}</option>
            ))}
          </select>
        </div>
        <div className="admin-filter">
          <label htmlFor="f-pilot">Pilot sessions</label>
          <select id="f-pilot" value={filters.pilot} onChange={set('pilot')}>
            <option value="include">included</option>
            <option value="exclude">left out</option>
            <option value="only">only pilots</option>
          </select>
        </div>
        <div className="admin-filter">
          <label htmlFor="f-judged">Quality</label>
          <select id="f-judged" value={filters.judged} onChange={set('judged')}>
            <option value="any">any</option>
            <option value="judged">judged</option>
            <option value="unjudged">not judged</option>
          </select>
        </div>
        <div className="admin-filter admin-filter-pair">
          <label htmlFor="f-qmin">Q from</label>
          <input id="f-qmin" type="number" min={1} max={5} step={0.5} value={filters.qualityMin} onChange={set('qualityMin')} />
          <label htmlFor="f-qmax">to</label>
          <input id="f-qmax" type="number" min={1} max={5} step={0.5} value={filters.qualityMax} onChange={set('qualityMax')} />
        </div>
        <div className="admin-filter admin-filter-pair">
          <label htmlFor="f-from">Started from (UTC)</label>
          <input id="f-from" type="date" value={filters.from} onChange={set('from')} />
          <label htmlFor="f-to">to</label>
          <input id="f-to" type="date" value={filters.to} onChange={set('to')} />
        </div>
        <div className="admin-filter admin-filter-actions">
          <button type="button" className="secondary" onClick={onReset}>Clear filters</button>
        </div>
      </form>
    </section>
  );
}
