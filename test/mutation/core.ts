/**
 * The mutation run's suite for the core (Stryker's tap runner runs this file as one process per mutant): suites that
 * run in-process and fast, the cheapest and most discriminating first, since the run stops at the first failure.
 * depth.test.ts has a group of its own (test/mutation/depth.ts): its million-level walks would slow every mutant here.
 */
import "../classify-message.test.js";
import "../classify-era.test.js";
import "../era-signals.test.js";
import "../answer-id.test.js";
import "../distill-words.test.js";
import "../answer-summary.test.js";
import "../validate.test.js";
import "../golden.test.js";
import "../likely-branch.test.js";
import "../pathological.test.js";
