/** The mutation run's suite for the nesting bound (depth.ts): its own group, as it is the slowest of the subset. */
import "../depth.test.js";
