/**
 * The mutation run's suite for the core (Stryker's tap runner runs this file as one process per mutant): suites that
 * run in-process and fast, the cheapest and most discriminating first, since the run stops at the first failure.
 */
import "../classify-message.test.js";
import "../classify-era.test.js";
import "../validate.test.js";
import "../golden.test.js";
import "../answer-summary.test.js";
import "../likely-branch.test.js";
import "../depth.test.js";
import "../pathological.test.js";
