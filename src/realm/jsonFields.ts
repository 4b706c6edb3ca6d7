// A handler's answer whose fields are JSON already (http/response.ts joins them to the head of
// a success answer as they are).

/** An object's members as JSON, without its braces: kept once derived, so not copied and encoded
 * again for each request. */
export class JsonFields {
  constructor(readonly json: string) {}
}
