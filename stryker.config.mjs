// Mutation testing of the code that decides correctness: `npm run mutation` (slow, not in `npm test`).
// The score and the surviving mutants are written to docs/mutation.md by scripts/mutation-report.mjs.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  mutate: [
    'src/domain/**/*.ts',
    'src/service/**/*.ts',
    'src/publish/**/*.ts',
    // The store's claim and queue-slot queries.
    'src/store/sqlite/delivery-rows.ts',
    'src/store/sqlite/post-rows.ts',
  ],
  coverageAnalysis: 'perTest',
  ignoreStatic: true,
  concurrency: 2,
  // A mutant that loops for ever (a queue walk that never ends) is detected by its timeout: keep it short.
  timeoutMS: 5_000,
  timeoutFactor: 1.5,
  reporters: ['progress', 'json', 'clear-text'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
