/**
 * The routing differential for the mutation run, which runs it once for each mutant of era.ts and routing-shapes.ts
 * that the earlier files leave alive: with 3,000 of its variants, which still reach every signal more than 100 times.
 */
process.env.WYMCP_ROUTING_VARIANTS ??= "3000";
await import("../routing-differential.test.js");
