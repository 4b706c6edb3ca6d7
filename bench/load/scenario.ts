// The scenario file (JSON or YAML): the shape of the organisation the run builds and the operations
// mixed in beside sends, each at a rate per user. Validated against a schema; an error names the
// field that is wrong.
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';

export interface Scenario {
  channels: number;
  topics: number;
  /** Share of sends that are direct messages (to one other user) rather than channel messages. */
  dm_share: number;
  /** Channels each user is subscribed to (all of them by default). */
  subscriptions_per_user?: number;
  ramp_up: number;
  ramp_down: number;
  /** A delivery later than this (seconds after the intended send) counts as lost. */
  delivery_timeout: number;
  /** Per-user rates (operations per second per user) of what is mixed in beside sends. */
  operations: Partial<Record<MixedOperation, { per_user_per_second: number }>>;
  /** Messages a fetch asks for (before the newest). */
  fetch_window: number;
}

export const MIXED_OPERATIONS = ['fetch', 'mark_read', 'react', 'typing', 'presence'] as const;
export type MixedOperation = (typeof MIXED_OPERATIONS)[number];

export const DEFAULT_SCENARIO: Scenario = { channels: 4, topics: 5, dm_share: 0.2, ramp_up: 2, ramp_down: 1, delivery_timeout: 10, operations: {}, fetch_window: 50 };

const rate = { type: 'object', additionalProperties: false, required: ['per_user_per_second'], properties: { per_user_per_second: { type: 'number', minimum: 0, maximum: 100 } } };

const schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    channels: { type: 'integer', minimum: 1, maximum: 1000 },
    topics: { type: 'integer', minimum: 1, maximum: 10_000 },
    dm_share: { type: 'number', minimum: 0, maximum: 1 },
    subscriptions_per_user: { type: 'integer', minimum: 1 },
    ramp_up: { type: 'number', minimum: 0, maximum: 3600 },
    ramp_down: { type: 'number', minimum: 0, maximum: 3600 },
    delivery_timeout: { type: 'number', exclusiveMinimum: 0, maximum: 600 },
    fetch_window: { type: 'integer', minimum: 1, maximum: 5000 },
    operations: { type: 'object', additionalProperties: false, properties: Object.fromEntries(MIXED_OPERATIONS.map((name) => [name, rate])) },
  },
};

const validate = new Ajv({ allErrors: true }).compile(schema);

function describe(error: ErrorObject): string {
  const field = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'additionalProperties') {
    const extra = String((error.params as { additionalProperty: string }).additionalProperty);
    return `unknown field '${field ? `${field}.` : ''}${extra}'`;
  }
  if (error.keyword === 'required') return `'${field ? `${field}.` : ''}${String((error.params as { missingProperty: string }).missingProperty)}' is required`;
  return `field '${field || '(top level)'}' ${error.message ?? 'is invalid'}`;
}

/** Reads and checks a scenario file; throws an Error whose message names the file and the field. */
export function loadScenario(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`scenario ${path}: cannot read it (${(error as Error).message})`);
  }
  let data: unknown;
  try {
    data = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new Error(`scenario ${path}: not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'} (${(error as Error).message.split('\n')[0]})`);
  }
  if (data === null || data === undefined) data = {};
  if (!validate(data)) {
    // A misspelt field shows first as a missing one; the unknown name says more.
    const errors = [...validate.errors!].sort((a, b) => Number(b.keyword === 'additionalProperties') - Number(a.keyword === 'additionalProperties'));
    throw new Error(`scenario ${path}: ${describe(errors[0]!)}`);
  }
  return { ...DEFAULT_SCENARIO, ...(data as Partial<Scenario>) };
}
