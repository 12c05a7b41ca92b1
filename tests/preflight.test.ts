import { describe, expect, it } from 'vitest';
import { planPreflight, REQUIREMENTS, type Requirement } from './preflight';

const byName = (name: string): Requirement => {
  const found = REQUIREMENTS.find((r) => r.name === name);
  if (!found) throw new Error(`no requirement ${name}`);
  return found;
};
const root = { isRoot: true, hasApt: true, ci: false };
const user = { isRoot: false, hasApt: true, ci: false };

describe('planPreflight', () => {
  it('is ready when nothing is missing', () => {
    expect(planPreflight([], user)).toEqual({ kind: 'ready', notes: [] });
  });

  it('stops a non-root user at once with the one apt-get line for every missing program', () => {
    const plan = planPreflight([byName('Chromium'), byName('PostgreSQL'), byName('Redis')], user);
    expect(plan.kind).toBe('stop');
    if (plan.kind !== 'stop') return;
    expect(plan.message).toContain('sudo apt-get install -y chromium postgresql redis-server');
    expect(plan.message).toContain('Chromium (the browser tests)');
    expect(plan.message.split('\n')).toHaveLength(1);
  });

  it('stops root on a machine without apt-get', () => {
    expect(planPreflight([byName('HAProxy')], { isRoot: true, hasApt: false, ci: true }).kind).toBe('stop');
  });

  it('installs as root with apt, and stops the services the packages start', () => {
    const plan = planPreflight([byName('PostgreSQL'), byName('HAProxy')], root);
    expect(plan).toMatchObject({ kind: 'install', packages: ['postgresql', 'haproxy'], services: ['postgresql', 'haproxy'], optionalPackages: [] });
  });

  it('leaves the optional readers out outside CI, with a note naming the tests that skip', () => {
    const plan = planPreflight([byName('pandas')], root);
    expect(plan.kind).toBe('ready');
    expect(plan.kind === 'ready' && plan.notes[0]).toMatch(/pandas missing, .*will skip \(apt-get install -y python3-pandas\)/);
  });

  it('never stops for an optional reader, even without root', () => {
    expect(planPreflight([byName('R with jsonlite')], user).kind).toBe('ready');
  });

  it('installs the optional readers in CI as root', () => {
    const plan = planPreflight([byName('pandas'), byName('R with jsonlite')], { ...root, ci: true });
    expect(plan).toMatchObject({ kind: 'install', packages: [], optionalPackages: ['python3-pandas', 'r-base-core', 'r-cran-jsonlite'], notes: [] });
  });
});

describe('REQUIREMENTS on this machine', () => {
  // The run that executes this file got past the preflight, so every required program is present.
  it('finds every required program', () => {
    expect(REQUIREMENTS.filter((r) => !r.optional && !r.present()).map((r) => r.name)).toEqual([]);
  });
});
