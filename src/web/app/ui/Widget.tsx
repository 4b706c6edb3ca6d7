// A message's poll (question, options with their voters, vote buttons, a new option) or to-do list
// (title, tasks with checkboxes, a new task), drawn from its submessages; changes are sent as
// widget events and come back as submessage events like anyone else's.
import { useState } from 'preact/hooks';
import type { Chat } from '../chat.js';
import { widgetOf, type Poll, type TodoList } from '../model/widgets.js';
import type { Message } from '../types.js';
import { userName } from './names.js';

interface Props {
  chat: Chat;
  message: Message;
  /** Reports a refused change (the row shows it). */
  act: (action: Promise<unknown>) => void;
}

/** A text box with a button that hands its trimmed text on and empties it. */
function AddForm({ label, onAdd }: { label: string; onAdd: (text: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      class="widget-add"
      onSubmit={(event) => {
        event.preventDefault();
        if (value.trim()) onAdd(value.trim());
        setValue('');
      }}
    >
      <label>
        <span class="visually-hidden">{label}</span>
        <input value={value} placeholder={label} onInput={(event) => setValue(event.currentTarget.value)} />
      </label>
      <button type="submit">Add</button>
    </form>
  );
}

function PollView({ chat, message, act, poll }: Props & { poll: Poll }) {
  const me = chat.state.meId;
  return (
    <section class="widget poll" aria-label={`Poll: ${poll.question}`}>
      <h3>{poll.question || 'Poll'}</h3>
      <ul>
        {poll.options.map((option) => {
          const voted = option.voters.includes(me);
          const voters = option.voters.map((id) => userName(chat.state, id)).join(', ');
          return (
            <li key={option.key}>
              <button
                type="button"
                aria-pressed={voted}
                aria-label={`${voted ? 'Take back vote for' : 'Vote for'} ${option.option} (${option.voters.length} votes)`}
                onClick={() => act(chat.submit(message, { type: 'vote', key: option.key, vote: voted ? -1 : 1 }))}
              >
                {option.voters.length}
              </button>{' '}
              {option.option}
              {voters && <span class="voters"> ({voters})</span>}
            </li>
          );
        })}
      </ul>
      <AddForm label="New option" onAdd={(option) => act(chat.submit(message, { type: 'new_option', idx: poll.nextIdx, option }))} />
    </section>
  );
}

function TodoView({ chat, message, act, todo }: Props & { todo: TodoList }) {
  return (
    <section class="widget todo" aria-label={`To-do list: ${todo.title}`}>
      <h3>{todo.title || 'To-do list'}</h3>
      <ul>
        {todo.tasks.map((task) => (
          <li key={task.key}>
            <label class={task.completed ? 'done' : ''}>
              <input type="checkbox" checked={task.completed} onChange={() => act(chat.submit(message, { type: 'strike', key: task.key }))} /> <strong>{task.task}</strong>
              {task.desc && `: ${task.desc}`}
            </label>
          </li>
        ))}
      </ul>
      <AddForm label="New task" onAdd={(task) => act(chat.submit(message, { type: 'new_task', key: todo.nextIdx, task, desc: '', completed: false }))} />
    </section>
  );
}

/** The message's widget, or nothing when it has none. */
export function Widget(props: Props) {
  const widget = widgetOf(props.message, props.chat.state.meId);
  if (widget?.kind === 'poll') return <PollView {...props} poll={widget} />;
  if (widget?.kind === 'todo') return <TodoView {...props} todo={widget} />;
  return null;
}
