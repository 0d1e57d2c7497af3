/** @module version: wymcp's version, for what `wymcp compile` writes and the client it connects as. */

// Bumped with package.json (test/compile.test.ts holds them equal); read from no file so the bundled CLI needs none.
export const WYMCP_VERSION = "0.1.0";
