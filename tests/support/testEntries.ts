/**
 * Child processes for tests, started from prebuilt bundles instead of through tsx.
 *
 * Many tests run a command line or a server in a child process (`tsx cli/judge.ts …`, a server that is
 * SIGKILLed). Under tsx every child resolves, loads and compiles ~450 TypeScript modules through loader hooks
 * that run on a separate thread: ~1.4 s of CPU before the first line of our code runs, several hundred times per
 * `npm test`. The run's global setup (tests/support/entriesGlobalSetup.ts) bundles the entry files once with
 * esbuild; a child then starts from one JavaScript file in ~0.5 s of CPU (measured on the 2-core box,
 * 2026-12-02: `cli/judge.ts` with no arguments, 1.5 s user+sys under tsx, 0.55 s from the bundle).
 *
 * The bundle runs the same source: npm packages stay external (loaded by Node as in production), and every
 * bundled module keeps its own `import.meta.url` / `dirname` / `filename`, so paths relative to a source file
 * (migrations, rubrics, worker threads) resolve as under tsx. A bundle is used only while none of its inputs
 * has changed since it was built (watch mode, an edit during a run), else the entry runs through tsx, as it
 * does with TANDEM_TEST_TSX=1. tests/support/testEntries.test.ts checks that both ways print the same.
 */
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT_DIR = path.join(REPO_ROOT, 'node_modules', '.cache', 'tandem-test-entries');
const MANIFEST = 'manifest.json';

/** Every file the tests start as a child process (repo-relative globs are not needed: the list is short). */
export const TEST_ENTRY_FILES: readonly string[] = [
  'wiring/main.ts',
  'cli/agreement.ts',
  'cli/analyze.ts',
  'cli/annotate.ts',
  'cli/dbCopy.ts',
  'cli/export.ts',
  'cli/judge.ts',
  'cli/prereg.ts',
  'cli/simulate.ts',
  'cli/teamwork.ts',
  'cli/withdraw.ts',
  'tests/harness/serverProcess.ts',
  'tests/harness/relayProcess.ts',
  'tests/harness/timedProviderProcess.ts',
  'tests/integration/crashServerProcess.ts',
  'tests/cluster/redisShutdownProcess.ts',
  'tests/harness/exportMemoryCheck.ts',
  'bench/cluster/reaperProcess.ts',
];

interface Manifest {
  builtAt: number;
  /** repo-relative entry → repo-relative bundle */
  bundles: Record<string, string>;
  /** absolute paths of every source file in any bundle */
  inputs: string[];
}

/** Builds every entry's bundle into `outDir` (node_modules/.cache/tandem-test-entries), replaced whole, atomically. */
export async function buildTestEntries(outDir = OUT_DIR, entryFiles: readonly string[] = TEST_ENTRY_FILES): Promise<{ ms: number; inputs: number }> {
  const started = Date.now();
  const esbuild = await import('esbuild');
  const staging = `${outDir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const entries = entryFiles.filter((f) => existsSync(path.join(REPO_ROOT, f)));
  const result = await esbuild.build({
    entryPoints: entries.map((f) => path.join(REPO_ROOT, f)),
    outdir: staging,
    outbase: REPO_ROOT,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    // A .map file beside the bundle, not a base64 comment inside it: Node compiles a bundle a third the size at
    // each child's start (~40 ms less per child on the 2-core box), and reads the map only for a stack trace.
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [keepModuleLocation],
    // The child sees its entry's own path as process.argv[1], as under tsx (a CLI may check it to know it is the main module).
    banner: { js: `process.argv[1] = ${JSON.stringify(REPO_ROOT)} + decodeURIComponent(new URL(import.meta.url).pathname).slice(${outDir.length}).replace(/\\.mjs$/, '.ts');` },
  });
  const bundles = Object.fromEntries(entries.map((f) => [f, path.join(path.dirname(f), `${path.basename(f, path.extname(f))}.mjs`)]));
  const inputs = Object.keys(result.metafile.inputs).map((p) => path.resolve(REPO_ROOT, p));
  const manifest: Manifest = { builtAt: started, bundles, inputs };
  writeFileSync(path.join(staging, MANIFEST), JSON.stringify(manifest));
  // A new directory, never files overwritten in place: worktrees may share node_modules files by hard link.
  rmSync(outDir, { recursive: true, force: true });
  renameSync(staging, outDir);
  return { ms: Date.now() - started, inputs: inputs.length };
}

/** esbuild plugin: a bundled module's `import.meta` location stays the source file's own. */
const keepModuleLocation = {
  name: 'keep-module-location',
  setup(build: import('esbuild').PluginBuild) {
    build.onLoad({ filter: /\.(ts|tsx|mts)$/ }, (args) => {
      let source = readFileSync(args.path, 'utf8');
      if (source.includes('import.meta.')) {
        source = source
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
          .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
          .replaceAll('import.meta.filename', JSON.stringify(args.path));
      }
      return { contents: source, loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
};

const checked = new Map<string, { manifest: Manifest; checkedAt: number; fresh: boolean }>();

function freshManifest(outDir: string): Manifest | null {
  if (process.env.TANDEM_TEST_TSX === '1') return null;
  const file = path.join(outDir, MANIFEST);
  if (!existsSync(file)) return null;
  // Re-check the inputs' times at most once a second per process: a spawn loop must not stat 450 files each time.
  const cached = checked.get(outDir);
  if (cached && Date.now() - cached.checkedAt < 1000) return cached.fresh ? cached.manifest : null;
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  const fresh = manifest.inputs.every((input) => {
    try {
      return statSync(input).mtimeMs <= manifest.builtAt;
    } catch {
      return false;
    }
  });
  checked.set(outDir, { manifest, checkedAt: Date.now(), fresh });
  return fresh ? manifest : null;
}

/**
 * How to start a TypeScript entry file in a child Node process: `process.execPath` with these arguments
 * (node flags first, then the entry; the caller appends the entry's own arguments).
 */
export function nodeArgsFor(entry: string | URL, nodeArgs: readonly string[] = [], outDir = OUT_DIR): string[] {
  const file = entry instanceof URL ? fileURLToPath(entry) : path.resolve(REPO_ROOT, entry);
  const bundle = freshManifest(outDir)?.bundles[path.relative(REPO_ROOT, file)];
  if (bundle) return [...nodeArgs, '--enable-source-maps', path.join(outDir, bundle)];
  return [...nodeArgs, '--import', 'tsx', file];
}
