// Zulip's message widgets (zerver/lib/widget.py, validator.py): a message starting with /poll or
// /todo gets a "widget" submessage from its sender describing the widget, and readers then add
// submessages that are the widget's events (votes, options, ticks, tasks). Pure: what a widget is,
// and whether an event is one the widget accepts.

export type WidgetType = 'poll' | 'todo';

export interface PollData {
  question: string;
  options: string[];
}

export interface TodoData {
  task_list_title: string;
  tasks: { task: string; desc: string }[];
}

export type WidgetContent = { widget_type: 'poll'; extra_data: PollData } | { widget_type: 'todo'; extra_data: TodoData };

/** Zulip's bound on the indices clients give new options and tasks (its MAX_IDX). */
const MAX_IDX = 1000;

/** A list item's text: a leading "-" or "*" bullet and the spaces around it dropped. */
const itemText = (line: string): string => line.trim().replace(/^\s*[-*]?\s*/, '');

/** The first line after the command (trimmed) and the non-empty item lines after it. */
function titleAndItems(rest: string): { title: string; items: string[] } {
  const lines = rest.split(/\r\n|\r|\n/);
  const title = lines[0] ? lines.shift()!.trim() : '';
  return { title, items: lines.map(itemText).filter((item) => item.length > 0) };
}

/** The widget a message's content creates, or null (most messages: anything not starting "/poll"
 * or "/todo" as its first word). */
export function widgetOf(content: string): WidgetContent | null {
  if (!content.startsWith('/')) return null;
  const command = /^\/(\S*)/.exec(content)![1];
  if (command !== 'poll' && command !== 'todo') return null;
  const { title, items } = titleAndItems(content.slice(command.length + 1));
  if (command === 'poll') return { widget_type: 'poll', extra_data: { question: title, options: items } };
  const tasks = items.map((item) => {
    // A task and its description are separated by the first ": ".
    const split = item.indexOf(': ');
    return split < 0 ? { task: item.trim(), desc: '' } : { task: item.slice(0, split).trim(), desc: item.slice(split + 2).trim() };
  });
  return { widget_type: 'todo', extra_data: { task_list_title: title, tasks } };
}

type Check = (value: unknown) => boolean;
const isString: Check = (value) => typeof value === 'string';
const isBoolean: Check = (value) => typeof value === 'boolean';
const isIndex: Check = (value) => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_IDX;
const isVote: Check = (value) => value === 1 || value === -1;

/** Each event type a widget accepts: its fields (besides `type`), and whether only the widget's
 * author may send it. */
const eventShapes: Record<WidgetType, Record<string, { fields: Record<string, Check>; authorOnly?: boolean }>> = {
  poll: {
    vote: { fields: { key: isString, vote: isVote } },
    new_option: { fields: { option: isString, idx: isIndex } },
    question: { fields: { question: isString }, authorOnly: true },
  },
  todo: {
    new_task: { fields: { key: isIndex, task: isString, desc: isString, completed: isBoolean } },
    strike: { fields: { key: isString } },
    new_task_list_title: { fields: { title: isString }, authorOnly: true },
  },
};

const authorOnlyMessages: Record<string, string> = {
  question: "You can't edit a question unless you are the author.",
  new_task_list_title: "You can't edit the task list title unless you are the author.",
};

/** Why `data` is not an event the widget accepts from this user, or null when it is. */
export function widgetEventProblem(widgetType: WidgetType, data: unknown, isAuthor: boolean): string | null {
  const name = `${widgetType} data`;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return `${name} is not a dict`;
  const event = data as Record<string, unknown>;
  if (!('type' in event)) return `${name} key is missing: type`;
  if (typeof event.type !== 'string') return `${name}["type"] is not a string`;
  const shape = Object.hasOwn(eventShapes[widgetType], event.type) ? eventShapes[widgetType][event.type] : undefined;
  if (!shape) return `Unknown type for ${name}: ${event.type}`;
  if (shape.authorOnly && !isAuthor) return authorOnlyMessages[event.type]!;
  for (const [field, check] of Object.entries(shape.fields)) {
    if (!(field in event)) return `${name} key is missing: ${field}`;
    if (!check(event[field])) return `Invalid ${name}["${field}"]`;
  }
  const extra = Object.keys(event).filter((key) => key !== 'type' && !(key in shape.fields));
  return extra.length > 0 ? `Unexpected arguments: ${extra.join(', ')}` : null;
}

/** The widget type a widget submessage's content names (null: not a widget Parley knows). */
export function widgetTypeOf(content: string): WidgetType | null {
  try {
    const type = (JSON.parse(content) as { widget_type?: unknown }).widget_type;
    return type === 'poll' || type === 'todo' ? type : null;
  } catch {
    return null;
  }
}
