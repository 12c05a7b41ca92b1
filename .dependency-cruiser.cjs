/**
 * The house rules (docs/architecture.md): each layer imports only the layers below it, and nothing imports in a
 * circle. `npm run lint:deps` checks them.
 *
 *   common/          wire types and schemas (also the browser's)          imports nothing of ours
 *   lib/             storage, llm, stats, charts, study files: both sides common
 *   server/          the live participant and researcher runtime          common, lib
 *   research/        judge, annotate, exports, analysis, teamwork, …      common, lib
 *   client/          the React pages                                      common
 *   cli/, wiring/    commands and start-up                                everything above
 *   tests/, bench/   harnesses                                            everything
 *
 * A unit test beside the code (*.test.ts) keeps its file's layer and may also use tests/support/.
 */
const TEST = '\\.test\\.tsx?$';
const above = {
  common: '^(lib|server|research|client|cli|wiring|tests|bench)/',
  lib: '^(server|research|client|cli|wiring|tests|bench)/',
  server: '^(research|client|cli|wiring|tests|bench)/',
  research: '^(server|client|cli|wiring|tests|bench)/',
  client: '^(lib|server|research|cli|wiring|tests|bench)/',
  cli: '^(tests|bench)/',
  wiring: '^(cli|tests|bench)/',
};
const why = {
  common: 'common/ is the wire format: it imports nothing of ours.',
  lib: 'lib/ serves both sides: it imports only common/.',
  server: 'The runtime reaches research tools and harnesses only through plug-ins registered in wiring/.',
  research: 'Research tools never import the runtime: they read the store and study files through lib/.',
  client: 'The browser bundle imports only common/.',
  cli: 'Commands are product code: no test or bench harness.',
  wiring: 'The wiring starts the product: no command or harness.',
};

module.exports = {
  forbidden: [
    {
      name: 'storage-front-door',
      severity: 'error',
      comment: 'Storage is reached through lib/storage/index.ts (and the lazily loaded PostgreSQL engine through its own index).',
      from: { path: '^(common|lib|server|research|client|cli|wiring)/', pathNot: '^lib/storage/' },
      to: { path: '^lib/storage/', pathNot: '^lib/storage/(index|postgres/index)\\.ts$' },
    },
    { name: 'no-circular', severity: 'error', comment: 'A circle makes every module in it depend on all the others.', from: {}, to: { circular: true } },
    ...Object.entries(above).flatMap(([layer, forbidden]) => [
      { name: `${layer}-imports-below-only`, severity: 'error', comment: why[layer], from: { path: `^${layer}/`, pathNot: TEST }, to: { path: forbidden } },
      {
        name: `${layer}-tests-keep-their-layer`,
        severity: 'error',
        comment: `${why[layer]} A test beside the code may also use tests/support/; one that needs more belongs in tests/.`,
        from: { path: `^${layer}/.*${TEST}` },
        to: { path: forbidden, pathNot: '^tests/support/' },
      },
    ]),
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|data)/' },
  },
};
