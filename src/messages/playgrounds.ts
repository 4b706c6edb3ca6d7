// Code playgrounds: where a code block of a language can be opened, as Zulip checks them (language
// names of at most 40 characters of a small alphabet, RFC 6570 URL templates whose only variable is
// `code`, one playground of a name per language).
import { errors } from '../errors.js';
import { templateVariables } from './linkifiers.js';

export interface PlaygroundRecord {
  id: number;
  realmId: number;
  name: string;
  pygmentsLanguage: string;
  urlTemplate: string;
}

export interface PlaygroundInput {
  name: string;
  pygmentsLanguage: string;
  urlTemplate: string;
}

/** Zulip's RealmPlayground.MAX_PYGMENTS_LANGUAGE_LENGTH. */
const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;
const PYGMENTS_LANGUAGE = /^[ a-zA-Z0-9_+-./#]*$/;
const BLANK = 'This field cannot be blank.';

/** The playground as it will be stored (trimmed), or the error Zulip gives for its first fault. */
export function checkPlayground(input: PlaygroundInput, existing: readonly PlaygroundRecord[]): PlaygroundInput {
  if ([...input.pygmentsLanguage].length > MAX_PYGMENTS_LANGUAGE_LENGTH) throw errors.badRequest(`pygments_language is too long (limit: ${MAX_PYGMENTS_LANGUAGE_LENGTH} characters)`);
  if (!PYGMENTS_LANGUAGE.test(input.pygmentsLanguage)) throw errors.badRequest('Invalid characters in pygments language');
  const playground = { name: input.name.trim(), pygmentsLanguage: input.pygmentsLanguage.trim(), urlTemplate: input.urlTemplate.trim() };
  if (playground.urlTemplate === '') throw errors.badRequest(BLANK);
  const variables = templateVariables(playground.urlTemplate);
  if (!variables) throw errors.badRequest('Invalid URL template.');
  if (playground.name === '' || playground.pygmentsLanguage === '') throw errors.badRequest(BLANK);
  if (!variables.includes('code')) throw errors.badRequest('Missing the required variable "code" in the URL template');
  if (new Set(variables).size !== 1) throw errors.badRequest('"code" should be the only variable present in the URL template');
  if (existing.some((other) => other.name === playground.name && other.pygmentsLanguage === playground.pygmentsLanguage)) {
    throw errors.badRequest('Realm playground with this Realm, Pygments language and Name already exists.');
  }
  return playground;
}

export const playgroundView = (record: PlaygroundRecord) => ({ id: record.id, name: record.name, pygments_language: record.pygmentsLanguage, url_template: record.urlTemplate });
