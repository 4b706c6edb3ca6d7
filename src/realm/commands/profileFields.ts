// Custom profile fields: definitions (administrators) and each user's values (spec endpoint 14).
import { errors } from '../../errors.js';
import { checkFieldValue, fieldTypes, fieldView, FieldType, isFieldType, profileValue, type FieldRecord } from '../../users/profileFields.js';
import { isAdmin } from '../../users/records.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { requireAdmin } from './admin.js';
import { checkOrder } from './order.js';
import { accessorsOf } from './userAccess.js';

export const MAX_FIELD_NAME_LENGTH = 40;
export const MAX_FIELD_HINT_LENGTH = 80;

const sortedFields = (ctx: ReadContext): FieldRecord[] => [...ctx.state.profileFields.values()].sort((a, b) => a.order - b.order);

function announceFields(ctx: CommandContext): void {
  ctx.emit({ type: 'custom_profile_fields', fields: sortedFields(ctx).map(fieldView) }, ctx.activeUserIds());
}

function fieldById(ctx: CommandContext, id: number): FieldRecord {
  const field = ctx.state.profileFields.get(id);
  if (!field) throw errors.badRequest(`Field id ${id} not found.`);
  return field;
}

function checkDefinition(ctx: CommandContext, field: Pick<FieldRecord, 'id' | 'name' | 'hint' | 'type' | 'fieldData'>): void {
  if (field.name.trim() === '') throw errors.badRequest('Label cannot be blank.');
  if ([...field.name].length > MAX_FIELD_NAME_LENGTH) throw errors.badRequest(`name is too long (limit: ${MAX_FIELD_NAME_LENGTH} characters)`);
  if ([...field.hint].length > MAX_FIELD_HINT_LENGTH) throw errors.badRequest(`hint is too long (limit: ${MAX_FIELD_HINT_LENGTH} characters)`);
  for (const other of ctx.state.profileFields.values()) {
    if (other.id !== field.id && other.name.toLowerCase() === field.name.trim().toLowerCase()) throw errors.badRequest('A field with that label already exists.');
  }
  if (field.type === FieldType.select) {
    const options = Object.values(field.fieldData);
    if (options.length === 0) throw errors.badRequest('Field must have at least one choice.');
    if (!options.every((option) => isStrings(option, ['text', 'order']))) throw errors.badRequest('field_data is not a valid list of choices');
  }
  if (field.type === FieldType.externalAccount && !isStrings(field.fieldData, ['subtype'], ['url_pattern'])) throw errors.badRequest('field_data is not a valid external account');
}

/** Zulip's check_dict_only: an object of strings with the required keys, perhaps the optional
 * ones, and nothing else (nothing nested, so nothing deeper than a client meant to send). */
function isStrings(value: unknown, required: string[], optional: string[] = []): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  return required.every((key) => Object.hasOwn(value, key)) && entries.every(([key, item]) => (required.includes(key) || optional.includes(key)) && typeof item === 'string');
}

/** The field_data a field keeps: options of a select field, an external account's kind; other
 * types have none (Zulip ignores what they are sent). */
const keptData = (type: number, data: Record<string, unknown>): Record<string, unknown> => (type === FieldType.select || type === FieldType.externalAccount ? data : {});

export interface FieldInput {
  name: string;
  hint: string;
  fieldType: number;
  fieldData: Record<string, unknown>;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
}

export const profileFieldCommands = {
  'fields.list': readCommand((ctx) => sortedFields(ctx).map(fieldView)),

  'fields.create': writeCommand((ctx, input: FieldInput) => {
    requireAdmin(ctx);
    if (!isFieldType(input.fieldType)) throw errors.badRequest('Invalid field type.');
    const field: FieldRecord = {
      id: ctx.store.nextId('field'),
      realmId: ctx.state.realm.id,
      name: input.name.trim(),
      hint: input.hint,
      type: input.fieldType,
      fieldData: keptData(input.fieldType, input.fieldData),
      order: Math.max(0, ...[...ctx.state.profileFields.values()].map((other) => other.order)) + 1,
      displayInProfileSummary: input.displayInProfileSummary,
      required: input.required,
      editableByUser: input.editableByUser,
    };
    checkDefinition(ctx, field);
    ctx.save('profileField', field);
    announceFields(ctx);
    return { id: field.id };
  }),

  'fields.update': writeCommand((ctx, input: { id: number } & Partial<Omit<FieldInput, 'fieldType'>>) => {
    requireAdmin(ctx);
    const field = fieldById(ctx, input.id);
    const updated: FieldRecord = {
      ...field,
      name: input.name?.trim() ?? field.name,
      hint: input.hint ?? field.hint,
      fieldData: keptData(field.type, input.fieldData ?? field.fieldData),
      displayInProfileSummary: input.displayInProfileSummary ?? field.displayInProfileSummary,
      required: input.required ?? field.required,
      editableByUser: input.editableByUser ?? field.editableByUser,
    };
    checkDefinition(ctx, updated);
    ctx.save('profileField', updated);
    announceFields(ctx);
    return {};
  }),

  'fields.reorder': writeCommand((ctx, input: { order: number[] }) => {
    requireAdmin(ctx);
    checkOrder(ctx.state.profileFields.keys(), input.order);
    input.order.forEach((id, index) => ctx.save('profileField', { ...fieldById(ctx, id), order: index + 1 }));
    announceFields(ctx);
    return {};
  }),

  /** Spec endpoint 14: every item is checked before any is stored, so a bad item changes nothing. */
  'profile.update': writeCommand((ctx, input: { data: { id: number; value: unknown }[] }) => {
    const user = ctx.user;
    const changes = input.data.map(({ id, value }) => {
      const field = fieldById(ctx, id);
      if (!field.editableByUser && !isAdmin(user)) throw errors.badRequest('You are not allowed to change this field. Contact an administrator to update it.');
      return { field, value: value === null ? null : checkFieldValue(field, value, (userId) => ctx.state.users.get(userId)?.isActive === true) };
    });
    const profileData = { ...user.profileData };
    for (const { field, value } of changes) {
      if (value === null) delete profileData[String(field.id)];
      else profileData[String(field.id)] = value;
    }
    ctx.save('user', { ...user, profileData });
    for (const { field, value } of changes) {
      const custom = value === null ? { id: field.id, value: null } : { id: field.id, ...profileValue(field, value) };
      ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: user.id, custom_profile_field: custom } }, accessorsOf(ctx, user));
    }
    return {};
  }),
};

export function profileFieldsInitialState(ctx: ReadContext) {
  return { custom_profile_fields: sortedFields(ctx).map(fieldView), custom_profile_field_types: fieldTypes };
}
