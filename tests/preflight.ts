/**
 * `npm test`'s first step: are the programs the tests start present? Run before the build and the tests, so
 * a fresh machine learns in a second what it lacks instead of minutes in, at the first browser or
 * PostgreSQL test.
 *
 *   Chromium        /usr/bin/chromium (or $CHROMIUM_PATH): the browser tests (tests/support/browser.ts)
 *   PostgreSQL      initdb/pg_ctl (or $PG_BIN): the storage tests' throwaway cluster (tests/support/postgresCluster.ts)
 *   Redis, HAProxy  the cluster tests' throwaway servers (tests/cluster/, bench/cluster/)
 *   pandas, R       optional: the export readers' tests (tests/e2e/exportReaders.test.ts) skip without them
 *
 * As root with apt-get (a CI box, a fresh container) the missing Debian packages are installed, as .ci/run
 * always did, and the services the packages start are stopped again (the tests start their own servers).
 * Anyone else gets the one line to run, and the command stops. The optional readers are installed only
 * with CI=true; elsewhere a note says which tests will skip. TANDEM_TEST_POSTGRES=off drops PostgreSQL.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CHROMIUM_PATH } from './support/browser';
import { postgresBinDir } from './support/postgresCluster';

export interface Requirement {
  name: string;
  /** What needs it, for the message. */
  neededBy: string;
  /** Debian packages that provide it. */
  packages: string[];
  /** Services those packages start that the tests do not want running. */
  services: string[];
  /** Optional requirements only install in CI; their tests skip with a reason elsewhere. */
  optional: boolean;
  present(): boolean;
}

export interface Environment {
  isRoot: boolean;
  hasApt: boolean;
  ci: boolean;
}

export type PreflightPlan =
  | { kind: 'ready'; notes: string[] }
  | { kind: 'install'; packages: string[]; services: string[]; optionalPackages: string[]; notes: string[] }
  | { kind: 'stop'; message: string };

/** What to do about the missing requirements (pure, so its rules are tested without touching the machine). */
export function planPreflight(missing: Requirement[], env: Environment): PreflightPlan {
  const required = missing.filter((r) => !r.optional);
  const optional = missing.filter((r) => r.optional);
  const canInstall = env.isRoot && env.hasApt;
  const installOptional = canInstall && env.ci && optional.length > 0;
  const notes = installOptional
    ? []
    : optional.map((r) => `note: ${r.name} missing, ${r.neededBy} will skip (apt-get install -y ${r.packages.join(' ')})`);
  if (required.length === 0 && !installOptional) return { kind: 'ready', notes };
  if (!canInstall) {
    const packages = required.flatMap((r) => r.packages);
    const why = required.map((r) => `${r.name} (${r.neededBy})`).join(', ');
    return { kind: 'stop', message: `npm test needs ${why}; install with: sudo apt-get install -y ${packages.join(' ')}` };
  }
  return {
    kind: 'install',
    packages: required.flatMap((r) => r.packages),
    services: missing.flatMap((r) => r.services),
    optionalPackages: installOptional ? optional.flatMap((r) => r.packages) : [],
    notes,
  };
}

/** `command` on PATH, or in /usr/sbin (where Debian puts haproxy, outside a normal user's PATH). */
function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command} >/dev/null 2>&1 || [ -x /usr/sbin/${command} ]`]).status === 0;
}

function succeeds(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

export const REQUIREMENTS: Requirement[] = [
  {
    name: 'Chromium',
    neededBy: 'the browser tests',
    packages: ['chromium'],
    services: [],
    optional: false,
    present: () => fs.existsSync(CHROMIUM_PATH),
  },
  {
    name: 'PostgreSQL',
    neededBy: 'the storage tests',
    packages: ['postgresql'],
    services: ['postgresql'],
    optional: false,
    present: () => {
      if (process.env.TANDEM_TEST_POSTGRES === 'off') return true;
      try {
        return fs.existsSync(path.join(postgresBinDir(), 'initdb'));
      } catch {
        return false;
      }
    },
  },
  {
    name: 'Redis',
    neededBy: 'the cluster tests',
    packages: ['redis-server'],
    services: ['redis-server'],
    optional: false,
    present: () => onPath('redis-server'),
  },
  {
    name: 'HAProxy',
    neededBy: 'the cluster tests',
    packages: ['haproxy'],
    services: ['haproxy'],
    optional: false,
    present: () => onPath('haproxy'),
  },
  {
    name: 'pandas',
    neededBy: "the export's pandas reader test",
    packages: ['python3-pandas'],
    services: [],
    optional: true,
    present: () => succeeds('/usr/bin/python3', ['-c', 'import pandas']),
  },
  {
    name: 'R with jsonlite',
    neededBy: "the export's R reader test",
    packages: ['r-base-core', 'r-cran-jsonlite'],
    services: [],
    optional: true,
    present: () => succeeds('Rscript', ['-e', 'library(jsonlite)']),
  },
];

function aptInstall(packages: string[], extraArgs: string[] = []): boolean {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env }).status !== 0) return false;
  return spawnSync('apt-get', ['install', '-y', '-qq', ...extraArgs, ...packages], { stdio: ['ignore', 'ignore', 'inherit'], env }).status === 0;
}

function main(): number {
  const missing = REQUIREMENTS.filter((r) => !r.present());
  const env: Environment = { isRoot: process.getuid?.() === 0, hasApt: onPath('apt-get'), ci: process.env.CI === 'true' || process.env.CI === '1' };
  const plan = planPreflight(missing, env);
  if (plan.kind === 'stop') {
    process.stderr.write(`${plan.message}\n`);
    return 1;
  }
  if (plan.kind === 'install') {
    if (plan.packages.length > 0) {
      process.stdout.write(`preflight: installing ${plan.packages.join(' ')} (apt-get, as root)\n`);
      if (!aptInstall(plan.packages)) {
        process.stderr.write(`preflight: apt-get install ${plan.packages.join(' ')} failed\n`);
        return 1;
      }
    }
    if (plan.optionalPackages.length > 0) {
      process.stdout.write(`preflight: installing ${plan.optionalPackages.join(' ')} (optional readers)\n`);
      if (!aptInstall(plan.optionalPackages, ['--no-install-recommends'])) process.stdout.write('note: pandas/R not installed; their reader tests will skip\n');
    }
    // The packages start system servers (PostgreSQL on 5432, Redis on 6379, HAProxy); the tests start their own.
    for (const service of plan.services) spawnSync('service', [service, 'stop'], { stdio: 'ignore' });
    const stillMissing = REQUIREMENTS.filter((r) => !r.optional && !r.present());
    if (stillMissing.length > 0) {
      process.stderr.write(`preflight: still missing after apt-get: ${stillMissing.map((r) => r.name).join(', ')}\n`);
      return 1;
    }
  }
  for (const note of plan.notes) process.stdout.write(`${note}\n`);
  const present = REQUIREMENTS.filter((r) => r.present()).map((r) => r.name);
  process.stdout.write(`preflight: ${present.join(', ')} present\n`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main();
