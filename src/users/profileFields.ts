// Custom profile fields: Zulip's field types, the stored definitions, and the checks a value must
// pass for its type (spec endpoint 14).
import { errors } from '../errors.js';
import { renderMarkdown } from '../markdown/index.js';

export const FieldType = { shortText: 1, longText: 2, select: 3, date: 4, link: 5, users: 6, externalAccount: 7, pronouns: 8 } as const;
export type FieldType = (typeof FieldType)[keyof typeof FieldType];

/** Zulip's custom_profile_field_types, as register returns them. */
export const fieldTypes = {
  SHORT_TEXT: { id: FieldType.shortText, name: 'Text (short)' },
  LONG_TEXT: { id: FieldType.longText, name: 'Text (long)' },
  SELECT: { id: FieldType.select, name: 'List of options' },
  DATE: { id: FieldType.date, name: 'Date picker' },
  URL: { id: FieldType.link, name: 'Link' },
  USER: { id: FieldType.users, name: 'Person picker' },
  EXTERNAL_ACCOUNT: { id: FieldType.externalAccount, name: 'External account' },
  PRONOUNS: { id: FieldType.pronouns, name: 'Pronouns' },
};

/** The external-account kinds an external-account field may name (Zulip's defaults). */
export const defaultExternalAccounts = {
  github: { name: 'GitHub', text: 'GitHub', hint: 'Enter your GitHub username', url_pattern: 'https://github.com/%(username)s' },
  twitter: { name: 'Twitter', text: 'Twitter', hint: 'Enter your Twitter username', url_pattern: 'https://twitter.com/%(username)s' },
};

const validTypes = new Set<number>(Object.values(FieldType));
/** Types whose values are Markdown, shown with a rendered_value. */
const markdownTypes = new Set<number>([FieldType.shortText, FieldType.longText]);
const SHORT_LIMIT = 50;
const LONG_LIMIT = 500;

export interface FieldRecord {
  id: number;
  realmId: number;
  name: string;
  hint: string;
  type: FieldType;
  /** Select: option key → {text, order}; external account: {subtype, url_pattern}. */
  fieldData: Record<string, unknown>;
  order: number;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
}

export function isFieldType(value: number): value is FieldType {
  return validTypes.has(value);
}

export function fieldView(field: FieldRecord) {
  return {
    id: field.id,
    name: field.name,
    hint: field.hint,
    type: field.type,
    field_data: Object.keys(field.fieldData).length === 0 ? '' : JSON.stringify(field.fieldData),
    order: field.order,
    required: field.required,
    editable_by_user: field.editableByUser,
    ...(field.displayInProfileSummary ? { display_in_profile_summary: true } : {}),
  };
}

/** The stored (string) form of a value, or an API error naming the field. */
export function checkFieldValue(field: FieldRecord, value: unknown, userExists: (id: number) => boolean): string {
  const named = (problem: string) => errors.badRequest(`${field.name} ${problem}`);
  if (field.type === FieldType.users) {
    if (!Array.isArray(value) || !value.every((id) => Number.isInteger(id))) throw named('is not a list of user IDs');
    for (const id of value as number[]) if (!userExists(id)) throw errors.badRequest(`Invalid user ID: ${id}`);
    return JSON.stringify([...new Set(value as number[])]);
  }
  if (typeof value !== 'string') throw named('is not a string');
  switch (field.type) {
    case FieldType.shortText:
    case FieldType.pronouns:
    case FieldType.externalAccount:
      if ([...value].length > SHORT_LIMIT) throw named(`is too long (limit: ${SHORT_LIMIT} characters)`);
      return value;
    case FieldType.longText:
      if ([...value].length > LONG_LIMIT) throw named(`is too long (limit: ${LONG_LIMIT} characters)`);
      return value;
    case FieldType.select:
      if (!Object.hasOwn(field.fieldData, value)) throw errors.badRequest(`'${value}' is not a valid choice for '${field.name}'.`);
      return value;
    case FieldType.date: {
      const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
      const parsed = date ? new Date(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]))) : undefined;
      if (!parsed || parsed.toISOString().slice(0, 10) !== value) throw named('is not a date');
      return value;
    }
    case FieldType.link: {
      let url: URL | undefined;
      try {
        url = new URL(value);
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw named('is not a URL');
      return value;
    }
  }
  throw named('has an unknown type');
}

/** The profile_data entry of a stored value. */
export function profileValue(field: FieldRecord, value: string): { value: string; rendered_value?: string } {
  return markdownTypes.has(field.type) ? { value, rendered_value: renderMarkdown(value) } : { value };
}
