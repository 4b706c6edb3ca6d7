// Values nested deep, for the limits on nesting: a client's JSON (http/json.ts), a structured copy
// between threads (threads/).

/** JSON text of arrays nested `depth` deep. */
export const nestedArrays = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
