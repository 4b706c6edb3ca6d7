// Per-user subscription settings (spec endpoint 13 and its bulk form): one command for both.
import type { SubscriptionProperty, SubscriptionRecord } from '../../channels/records.js';
import { errors } from '../../errors.js';
import { writeCommand, type CommandContext } from '../context.js';

export interface PropertyChange {
  channelId: number;
  property: SubscriptionProperty;
  value: unknown;
}

/** The subscription's fields that hold a yes/no setting (null: the user's default). */
type SwitchField = { [K in keyof SubscriptionRecord]: SubscriptionRecord[K] extends boolean | null ? K : never }[keyof SubscriptionRecord];

const fieldOf: Record<Exclude<SubscriptionProperty, 'color' | 'is_muted' | 'in_home_view'>, SwitchField> = {
  pin_to_top: 'pinToTop',
  desktop_notifications: 'desktopNotifications',
  audible_notifications: 'audibleNotifications',
  push_notifications: 'pushNotifications',
  email_notifications: 'emailNotifications',
  wildcard_mentions_notify: 'wildcardMentionsNotify',
};

/** Booleans may arrive JSON-encoded in form fields ("true"). */
function booleanValue(property: string, value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw errors.badRequest(`${property} is not a boolean`);
}

/** Zulip clients JSON-encode `value`, so a color may arrive as '"#f00f00"'. */
function unquoted(value: unknown): unknown {
  if (typeof value !== 'string' || !/^".*"$/.test(value)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Checks one change and returns the updated record. */
function applyChange(subscription: SubscriptionRecord, requested: PropertyChange): SubscriptionRecord {
  const change = { ...requested, value: unquoted(requested.value) };
  const { property } = change;
  if (property === 'color') {
    if (typeof change.value !== 'string' || !/^#([0-9a-f]{3}){1,2}$/i.test(change.value)) throw errors.badRequest('color is not a valid hex color code');
    return { ...subscription, color: change.value };
  }
  const value = booleanValue(property, change.value);
  if (property === 'is_muted' || property === 'in_home_view') return { ...subscription, isMuted: property === 'is_muted' ? value : !value };
  return { ...subscription, [fieldOf[property]]: value };
}

function announce(ctx: CommandContext, userId: number, channelId: number, property: SubscriptionProperty, value: string | boolean | null): void {
  ctx.emit({ type: 'subscription', op: 'update', stream_id: channelId, property, value }, [userId]);
}

export const subscriptionSettingsCommands = {
  /** Every change is checked before any is stored. */
  'subscriptions.setProperties': writeCommand((ctx, input: { changes: PropertyChange[] }) => {
    const user = ctx.user;
    const updated = new Map<number, SubscriptionRecord>();
    for (const change of input.changes) {
      const current = updated.get(change.channelId) ?? ctx.state.subscription(change.channelId, user.id);
      if (!ctx.state.channels.has(change.channelId)) throw errors.badRequest('Invalid channel ID');
      if (!current?.active) throw errors.badRequest(`Not subscribed to channel ID ${change.channelId}`);
      updated.set(change.channelId, applyChange(current, change));
    }
    for (const subscription of updated.values()) {
      ctx.save('subscription', subscription);
    }
    for (const change of input.changes) {
      const subscription = updated.get(change.channelId)!;
      // Muting is announced under both names, one event each (spec: Events).
      if (change.property === 'is_muted' || change.property === 'in_home_view') {
        announce(ctx, user.id, change.channelId, 'in_home_view', !subscription.isMuted);
        announce(ctx, user.id, change.channelId, 'is_muted', subscription.isMuted);
      } else if (change.property === 'color') announce(ctx, user.id, change.channelId, 'color', subscription.color);
      else announce(ctx, user.id, change.channelId, change.property, subscription[fieldOf[change.property]]);
    }
    return {};
  }),
};
