// Polls and to-do lists, read from a message's submessages as Zulip's web client reads them
// (web/shared/src/poll_data.ts, web/src/todo_widget.ts): the sender's widget first, then every
// reader's events in order. Options and tasks are keyed as Zulip's clients key them, so votes and
// ticks made from Zulip's apps and from this client mean the same thing. Pure functions.
import type { Message } from '../types.js';

type Submessage = Message['submessages'][number];

export interface PollOption {
  key: string;
  option: string;
  voters: number[];
}

export interface Poll {
  kind: 'poll';
  question: string;
  options: PollOption[];
  /** The idx the user's next new option takes (Zulip's my_idx): one no option of theirs has. */
  nextIdx: number;
}

export interface Task {
  key: string;
  task: string;
  desc: string;
  completed: boolean;
}

export interface TodoList {
  kind: 'todo';
  title: string;
  tasks: Task[];
  /** The key the user's next new task takes (one no task of theirs has). */
  nextIdx: number;
}

type Data = Record<string, unknown>;

function parsed(content: string): Data | null {
  try {
    const data: unknown = JSON.parse(content);
    return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Data) : null;
  } catch {
    return null;
  }
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function pollOf(extra: Data, events: Submessage[], authorId: number, meId: number): Poll {
  const options = new Map<string, PollOption>();
  // Zulip's clients drop an option whose text is already there (a /poll may list one twice).
  const add = (key: string, option: string) => {
    if (![...options.values()].some((existing) => existing.option === option)) options.set(key, { key, option, voters: [] });
  };
  (Array.isArray(extra.options) ? extra.options : []).forEach((option, index) => add(`canned,${index}`, text(option)));
  let question = text(extra.question);
  let nextIdx = 1;
  for (const { sender_id, content } of events) {
    const data = parsed(content);
    if (data?.type === 'new_option' && typeof data.idx === 'number') {
      add(`${sender_id},${data.idx}`, text(data.option));
      if (sender_id === meId) nextIdx = Math.max(nextIdx, data.idx + 1);
    } else if (data?.type === 'vote') {
      const option = options.get(text(data.key));
      if (!option) continue;
      const others = option.voters.filter((id) => id !== sender_id);
      option.voters = data.vote === 1 ? [...others, sender_id] : others;
    } else if (data?.type === 'question' && sender_id === authorId) question = text(data.question);
  }
  return { kind: 'poll', question, options: [...options.values()], nextIdx };
}

function todoOf(extra: Data, events: Submessage[], authorId: number, meId: number): TodoList {
  const tasks = new Map<string, Task>();
  // As for poll options: a task whose name is in use is dropped.
  const add = (key: string, data: Data) => {
    const task = text(data.task);
    if (![...tasks.values()].some((existing) => existing.task === task)) tasks.set(key, { key, task, desc: text(data.desc), completed: data.completed === true });
  };
  (Array.isArray(extra.tasks) ? (extra.tasks as Data[]) : []).forEach((task, index) => add(`${index},canned`, task));
  let title = text(extra.task_list_title) || 'Task list';
  // Zulip's todo widget counts from 1 and moves past its count before sending (its first task is 2).
  let lastIdx = 1;
  for (const { sender_id, content } of events) {
    const data = parsed(content);
    if (data?.type === 'new_task' && typeof data.key === 'number') {
      add(`${data.key},${sender_id}`, data);
      if (sender_id === meId) lastIdx = Math.max(lastIdx, data.key + 1);
    } else if (data?.type === 'strike') {
      const task = tasks.get(text(data.key));
      if (task) task.completed = !task.completed;
    } else if (data?.type === 'new_task_list_title' && sender_id === authorId) title = text(data.title);
  }
  return { kind: 'todo', title, tasks: [...tasks.values()], nextIdx: lastIdx + 1 };
}

/** The message's poll or to-do list as it stands, or null when it is no widget. */
export function widgetOf(message: Message, meId: number): Poll | TodoList | null {
  const [widget, ...events] = message.submessages;
  if (!widget || widget.msg_type !== 'widget' || widget.sender_id !== message.sender_id) return null;
  const data = parsed(widget.content);
  const extra = data && typeof data.extra_data === 'object' && data.extra_data !== null ? (data.extra_data as Data) : {};
  if (data?.widget_type === 'poll') return pollOf(extra, events, message.sender_id, meId);
  if (data?.widget_type === 'todo') return todoOf(extra, events, message.sender_id, meId);
  return null;
}
