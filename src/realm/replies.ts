// A command asked of a realm that runs elsewhere (on another node of a cluster, or on the realm
// thread) and its answer as they travel: plain data both ways. The answer is the command's output,
// or the API error it was refused with; other failures were logged where the realm runs, and the
// caller learns only that the command failed.
import { ApiError, errors, type ErrorCode } from '../errors.js';
import { commands, type CommandName, type InputOf, type OutputOf } from './commands/index.js';
import { isFieldsCommand, type FieldsCommand, type RealmHandle } from './handle.js';
import { JsonFields } from './jsonFields.js';

/** A command as it travels: its name, the acting user, and its input, typed by the asking side
 * against the same command table; `fields` when its answer is to come as JSON fields. */
type RequestOf<N extends CommandName> = [name: N, userId: number | null, input: InputOf<N>, form?: 'fields'];
export type CommandRequest = { [N in CommandName]: RequestOf<N> }[CommandName];
type WireError = { status: number; code: ErrorCode; message: string; extra: ApiError['extra']; headers: Record<string, string> };
export type Reply = { ok: unknown } | { fields: readonly string[] } | { error: WireError | null };

/** A request run on the handle: one typed call for whichever command it names. */
const run = <N extends CommandName>(handle: RealmHandle, [name, userId, input]: RequestOf<N>): Promise<OutputOf<N>> => handle.ask(name, userId, input);

/** Runs a request that came from elsewhere on the realm's own handle (its actor). */
export async function replyTo(handle: RealmHandle, request: CommandRequest): Promise<Reply> {
  const [name, userId, input, form] = request;
  if (!Object.hasOwn(commands, name)) return { error: null };
  try {
    if (form !== 'fields') return { ok: await run(handle, request) };
    return isFieldsCommand(name) ? { fields: (await handle.askFields(name, userId, input as InputOf<FieldsCommand>)).parts } : { error: null };
  } catch (error) {
    return errorReply(error);
  }
}

/** A request for the command, typed against the command table. */
export const requestOf = <N extends CommandName>(name: N, userId: number | null, input: InputOf<N>): CommandRequest => [name, userId, input] satisfies RequestOf<N> as CommandRequest;

/** A request for the command's answer as JSON fields. */
export const fieldsRequest = <N extends FieldsCommand>(name: N, userId: number | null, input: InputOf<N>): CommandRequest => [name, userId, input, 'fields'] satisfies RequestOf<N> as CommandRequest;

/** The reply a refusal travels as: the API error it was, or (any other failure) none. */
export function errorReply(error: unknown): Reply {
  return { error: error instanceof ApiError ? { status: error.status, code: error.code, message: error.message, extra: error.extra, headers: error.headers } : null };
}

/** The output a reply carries; its refusal thrown as the API error it was. */
export function outputOf<N extends CommandName>(reply: Reply): OutputOf<N> {
  if ('ok' in reply) return reply.ok as OutputOf<N>;
  throw refusalOf(reply);
}

/** The JSON fields a reply to a `fieldsRequest` carries; its refusal thrown as the API error it was. */
export function jsonFieldsOf(reply: Reply): JsonFields {
  if ('fields' in reply) return new JsonFields(...reply.fields);
  throw refusalOf(reply);
}

/** The API error a reply's refusal was (any other failure: an internal error). */
export function refusalOf(reply: Reply): ApiError {
  if (!('error' in reply) || reply.error === null) return errors.internal();
  const { status, code, message, extra, headers } = reply.error;
  return new ApiError(status, code, message, extra, headers);
}
