// An answer whose fields are JSON already: made where the realm runs for the commands whose
// answers go to the client as they are (a window of messages), so that a realm on another thread or
// node sends the JSON rather than the objects it would be made from (copied across, and encoded
// again where the request came in); http/response.ts joins them to the head of a success answer
// as they are.

/** An object's members as JSON, without its braces: kept once derived, so not copied and encoded
 * again for each request. */
export class JsonFields {
  constructor(readonly json: string) {}
}

/** A plain object's members as JSON, without its braces. */
export const membersJson = (output: object): string => JSON.stringify(output).slice(1, -1);

/** A plain object's members as JSON fields. */
export const fieldsOf = (output: object): JsonFields => new JsonFields(membersJson(output));
