import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnWorker, withoutLoaders } from './spawnWorker';

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('withoutLoaders', () => {
  it("drops the flags that load modules into a thread (tsx's, as `npx tsx` passes them) and keeps the rest", () => {
    const underTsx = ['--require', '/app/node_modules/tsx/dist/preflight.cjs', '--import', 'file:///app/node_modules/tsx/dist/loader.mjs'];
    expect(withoutLoaders([...underTsx, '--cpu-prof', '--cpu-prof-dir=/tmp/p', '--enable-source-maps'])).toEqual(['--cpu-prof', '--cpu-prof-dir=/tmp/p', '--enable-source-maps']);
    expect(withoutLoaders(['--import=tsx', '-r', 'x.cjs', '--loader', 'l.mjs', '--experimental-loader=m.mjs', '--max-old-space-size=512'])).toEqual(['--max-old-space-size=512']);
    expect(withoutLoaders([])).toEqual([]);
  });
});

describe('spawnWorker', () => {
  it('starts a JavaScript module as it is, with its data, and without the process’s loader flags', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-worker-'));
    temps.push(dir);
    const file = path.join(dir, 'echo.mjs');
    fs.writeFileSync(file, "import { parentPort, workerData } from 'node:worker_threads';\nparentPort.postMessage({ data: workerData.data, execArgv: process.execArgv });\n");
    // The caller's flags as given; by default, the process's less its loaders.
    const worker = spawnWorker(pathToFileURL(file), { n: 7 }, { execArgv: ['--enable-source-maps'] });
    const reply = await new Promise<{ data: unknown; execArgv: string[] }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(reply).toEqual({ data: { n: 7 }, execArgv: ['--enable-source-maps'] });
    const inherited = spawnWorker(pathToFileURL(file));
    const defaults = await new Promise<{ execArgv: string[] }>((resolve) => inherited.once('message', resolve));
    await inherited.terminate();
    expect(defaults.execArgv).toEqual(withoutLoaders(process.execArgv));
    expect(defaults.execArgv.some((f) => /^(--import|--require|-r|--loader)\b/.test(f))).toBe(false);
  });
});
