// @ts-check
/**
 * `npm run mutation` (scripts/mutation.ts runs Stryker with this, then writes docs/mutation.md from the report).
 * Each test file runs in a process of its own, and Stryker's per-test coverage (a test is a file here) sends a mutant
 * only to the files whose run executed it, in the order below, stopping at the first that fails. So the files come
 * most specific and cheapest first: a mutant is mostly killed by the suite of its own module, and never pays for
 * loading the others. All of them run in-process (no child servers), on a transpiled copy of the sandbox.
 */
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "tap",
  plugins: ["@stryker-mutator/tap-runner"],
  tap: {
    testFiles: [
      "test/classify-message.test.ts",
      "test/classify-era.test.ts",
      "test/era-signals.test.ts",
      "test/answer-id.test.ts",
      "test/distill-words.test.ts",
      "test/brief-answer.test.ts",
      "test/likely-branch-order.test.ts",
      "test/legacy-revision.test.ts",
      "test/validate.test.ts",
      "test/answer-summary.test.ts",
      "test/golden.test.ts",
      "test/likely-branch.test.ts",
      "test/pathological.test.ts",
      "test/body-reader.test.ts",
      "test/admission-stage.test.ts",
      "test/admission.test.ts",
      "test/modern-batch.test.ts",
      "test/options.test.ts",
      "test/depth.test.ts",
      "test/mutation/routing-differential.ts",
    ],
    // Plain Node on the sandbox's transpiled copy (buildCommand below), not tsx: a process per suite per mutant
    // starts in well under half the time.
    nodeArgs: ["--test-reporter=tap", "-r", "{{hookFile}}", "test/mutation/run.mjs", "{{testFile}}"],
    forceBail: true,
  },
  mutate: [
    "src/core/validate.ts",
    "src/core/distill.ts",
    "src/core/era.ts",
    "src/core/routing-shapes.ts",
    "src/core/depth.ts",
    "src/core/envelope.ts",
    "src/core/classify-message.ts",
    "src/core/likely-branch.ts",
    "src/compile/runtime/brief-answer.ts",
    "src/core/admission.ts",
    "src/options/options.ts",
    "src/core/option-error.ts",
    "src/core/legacy-revision.ts",
    "src/core/legacy-checks.ts",
  ],
  buildCommand: "node test/mutation/transpile.mjs",
  coverageAnalysis: "perTest",
  concurrency: 2,
  // A mutant that loops is stopped after 1.5 times its files' own time plus this.
  timeoutMS: 8000,
  reporters: ["json", "clear-text", "progress"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  incremental: true,
  incrementalFile: "reports/mutation/stryker-incremental.json",
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  // Only what the test subset never reads (.venv: the Python tests' environment, whose lib64 link Stryker cannot copy);
  // bench/ stays (depth.test.ts imports its byte scanner).
  ignorePatterns: ["dist", "conformance", "runtimes", "reports", "*.tgz", ".readme-snippets", ".venv", ".venv.lock"],
  thresholds: { high: 90, low: 85, break: null },
};
