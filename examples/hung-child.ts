/**
 * @module examples/hung-child: how long a child process may outlive the moment it should have ended before it is
 * killed. Not a bound on how fast anything runs: a child still alive this long after it was told to stop (or, for an
 * install or a one-shot command, after it started) is hung, and is killed so that it cannot outlive the test or bench
 * that started it. The tests' only bound on time is the runner's own limit (docs/testing.md), which this stays under.
 */
export const HUNG_CHILD_MS = 10 * 60_000;
