/**
 * `npm run test:unit`: the in-process test files (scripts/test-sets.ts), on every core. Arguments go to `node --test`
 * (`-- --test-reporter=dot`); `--list` prints the files, `--explain` says why each other file is out.
 */
import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { allTestFiles, outOfProcess, SLOW_IN_PROCESS, unitTestFiles } from "./test-sets.js";

const args = process.argv.slice(2);
if (args.includes("--list")) {
  console.log(unitTestFiles().join("\n"));
} else if (args.includes("--explain")) {
  for (const file of allTestFiles()) {
    const slow = SLOW_IN_PROCESS[file];
    const out = outOfProcess(file);
    console.log(`${file}: ${slow ? `slow: ${slow}` : out ? `${out.means} (${out.module})` : "in-process"}`);
  }
} else {
  const given = (flag: string) => args.some((arg) => arg.startsWith(flag));
  // Every core: the files are CPU-bound and share no port (node --test's default leaves one core idle). The runner's
  // limit is the tests' only bound on time, as in package.json's test:src and test:dist (docs/testing.md).
  const defaults = [
    ...(given("--test-reporter") ? [] : ["--test-reporter=spec"]),
    ...(given("--test-concurrency") ? [] : [`--test-concurrency=${availableParallelism()}`]),
    ...(given("--test-timeout") ? [] : ["--test-timeout=900000"]),
  ];
  const run = spawnSync(process.execPath, ["--import", "tsx", "--test", ...defaults, ...args, ...unitTestFiles()], { stdio: "inherit" });
  process.exitCode = run.status ?? 1;
}
