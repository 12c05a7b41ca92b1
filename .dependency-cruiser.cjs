/**
 * The house rules (docs/architecture.md): each layer imports only the layers below it, and nothing imports in a
 * circle. `npm run lint:deps` checks them; `npm test` runs it before the tests.
 *
 *   common/   wire types and schemas (also the browser's)          imports nothing of ours
 *   lib/      storage, llm, stats, charts, study files: both sides   common
 *   server/   the live participant and researcher runtime          common, lib
 *   research/ judge, annotate, exports, analysis, teamwork, …      common, lib
 *   client/   the React pages                                      common
 *   cli/, wiring/   commands and start-up                          everything above
 *   tests/, bench/  harnesses                                      everything
 */
const PRODUCT = '^(common|lib|server|research|client|cli|wiring)/';
const notTest = '\\.test\\.tsx?$';

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'A circle makes every module in it depend on all the others.', from: {}, to: { circular: true } },
    { name: 'common-imports-nothing', severity: 'error', from: { path: '^common/' }, to: { path: '^(lib|server|research|client|cli|wiring|tests|bench)/' } },
    { name: 'lib-imports-common-only', severity: 'error', from: { path: '^lib/' }, to: { path: '^(server|research|client|cli|wiring|tests|bench)/' } },
    { name: 'server-never-imports-research', severity: 'error', comment: 'The runtime reaches research tools through plug-ins registered in wiring/.', from: { path: '^server/' }, to: { path: '^(research|client|cli|wiring|tests|bench)/' } },
    { name: 'research-never-imports-the-runtime', severity: 'error', from: { path: '^research/' }, to: { path: '^(server|client|cli|wiring|tests|bench)/' } },
    { name: 'client-imports-common-only', severity: 'error', from: { path: '^client/' }, to: { path: '^(lib|server|research|cli|wiring|tests|bench)/' } },
    { name: 'cli-and-wiring-not-harnesses', severity: 'error', from: { path: '^(cli|wiring)/' }, to: { path: '^(tests|bench)/' } },
    {
      name: 'product-tests-stay-in-their-layer',
      severity: 'error',
      comment: 'A unit test beside the code uses its own layer and below, and test support; tests/ may use anything.',
      from: { path: PRODUCT, pathNot: '^tests/' },
      to: { path: '^bench/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|data)/' },
  },
};
