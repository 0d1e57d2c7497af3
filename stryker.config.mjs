// @ts-check
/**
 * `npm run mutation` (scripts/mutation.ts runs Stryker with this, then writes docs/mutation.md from the report).
 * The test subset runs in-process (no child servers), so Stryker's per-file coverage sends each mutant only to
 * the files that load its module.
 */
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "tap",
  plugins: ["@stryker-mutator/tap-runner"],
  tap: {
    testFiles: ["test/mutation/core.ts", "test/mutation/era.ts", "test/mutation/hosts.ts", "test/mutation/depth.ts"],
    nodeArgs: ["--import", "tsx", "--test-reporter=tap", "-r", "{{hookFile}}", "{{testFile}}"],
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
    "src/hosts/admit.ts",
  ],
  coverageAnalysis: "perTest",
  concurrency: 2,
  timeoutMS: 20000,
  reporters: ["json", "clear-text", "progress"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  incremental: true,
  incrementalFile: "reports/mutation/stryker-incremental.json",
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  // Only what the test subset never reads; bench/ stays (depth.test.ts imports its byte scanner).
  ignorePatterns: ["dist", "conformance", "runtimes", "reports", "*.tgz", ".readme-snippets"],
  thresholds: { high: 90, low: 85, break: null },
};
