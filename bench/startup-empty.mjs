// The start-up baseline: a module with nothing in it.
export {};
