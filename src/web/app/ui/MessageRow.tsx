// One message: who and when, the server's rendered HTML, its poll or to-do list, reactions, and the
// actions on it (star, react, and for the sender edit and delete). Re-rendered only when its message
// object changes.
import { Component } from 'preact';
import type { Chat } from '../chat.js';
import type { Message, Reaction } from '../types.js';
import { messageTime, userName } from './names.js';
import { Widget } from './Widget.js';

interface Props {
  chat: Chat;
  message: Message;
  /** The conversation it is in, when it differs from the message before (mixed narrows). */
  header: string;
  unread: boolean;
}

interface State {
  editing: string | null;
  confirmingDelete: boolean;
  error: string | null;
}

/** The reaction offered on every message. */
const THUMBS_UP = { name: 'thumbs_up', code: '1f44d', type: 'unicode_emoji' };

const emojiOf = (reaction: Reaction): string =>
  reaction.reaction_type === 'unicode_emoji' ? String.fromCodePoint(...reaction.emoji_code.split('-').map((part) => parseInt(part, 16))) : `:${reaction.emoji_name}:`;

/** Reactions grouped by emoji: who reacted with each. */
function grouped(reactions: Reaction[]): { reaction: Reaction; userIds: number[] }[] {
  const groups = new Map<string, { reaction: Reaction; userIds: number[] }>();
  for (const reaction of reactions) {
    const key = `${reaction.reaction_type}:${reaction.emoji_code}`;
    const group = groups.get(key) ?? { reaction, userIds: [] };
    group.userIds.push(reaction.user_id);
    groups.set(key, group);
  }
  return [...groups.values()];
}

export class MessageRow extends Component<Props, State> {
  override state: State = { editing: null, confirmingDelete: false, error: null };

  override shouldComponentUpdate(next: Props, nextState: State): boolean {
    return next.message !== this.props.message || next.unread !== this.props.unread || next.header !== this.props.header || nextState !== this.state;
  }

  private act(action: Promise<unknown>, after: Partial<State> = {}): void {
    action.then(
      () => this.setState({ error: null, ...after }),
      (failure: Error) => this.setState({ error: failure.message }),
    );
  }

  private startEditing = () => this.act(this.props.chat.rawContent(this.props.message.id).then((content) => this.setState({ editing: content })));

  private saveEdit = () => this.act(this.props.chat.edit(this.props.message.id, this.state.editing ?? ''), { editing: null });

  override render({ chat, message, header, unread }: Props, { editing, confirmingDelete, error }: State) {
    const mine = message.sender_id === chat.state.meId;
    const starred = message.flags.includes('starred');
    const sender = message.sender_full_name;
    const time = messageTime(message.timestamp);
    return (
      <>
        {header && <h2 class="recipient">{header}</h2>}
        <article tabIndex={-1} class={`message${unread ? ' unread' : ''}`} data-id={message.id} data-unread={unread} aria-label={`${sender}, ${time}`}>
          <header>
            <span class="sender">{sender}</span> <time>{time}</time>
          </header>
          {editing === null ? (
            <>
              <div class="content" dangerouslySetInnerHTML={{ __html: message.content }} />
              <Widget chat={chat} message={message} act={(action) => this.act(action)} />
            </>
          ) : (
            <div class="edit">
              <label>
                <span class="visually-hidden">Edit message</span>
                <textarea
                  value={editing}
                  onInput={(event) => this.setState({ editing: event.currentTarget.value })}
                  onKeyDown={(event) => {
                    if (event.key === 'Escape') this.setState({ editing: null });
                    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
                      event.preventDefault();
                      this.saveEdit();
                    }
                  }}
                />
              </label>
              <button type="button" onClick={this.saveEdit}>
                Save
              </button>
              <button type="button" onClick={() => this.setState({ editing: null })}>
                Cancel
              </button>
            </div>
          )}
          {message.reactions.length > 0 && (
            <div class="reactions">
              {grouped(message.reactions).map(({ reaction, userIds }) => (
                <button
                  type="button"
                  key={`${reaction.reaction_type}:${reaction.emoji_code}`}
                  class={`reaction${userIds.includes(chat.state.meId) ? ' mine' : ''}`}
                  aria-pressed={userIds.includes(chat.state.meId)}
                  aria-label={`${reaction.emoji_name} by ${userIds.map((id) => userName(chat.state, id)).join(', ')}`}
                  onClick={() => this.act(chat.react(message, { name: reaction.emoji_name, code: reaction.emoji_code, type: reaction.reaction_type }))}
                >
                  {emojiOf(reaction)} {userIds.length}
                </button>
              ))}
            </div>
          )}
          <div class="actions">
            <button type="button" aria-pressed={starred} aria-label={starred ? 'Unstar' : 'Star'} onClick={() => this.act(chat.star(message))}>
              {starred ? '★' : '☆'}
            </button>
            <button type="button" aria-label="React with thumbs up" onClick={() => this.act(chat.react(message, THUMBS_UP))}>
              +👍
            </button>
            {mine && editing === null && (
              <button type="button" onClick={this.startEditing}>
                Edit
              </button>
            )}
            {mine &&
              (confirmingDelete ? (
                <button type="button" class="danger" onClick={() => this.act(chat.remove(message.id))}>
                  Confirm delete
                </button>
              ) : (
                <button type="button" onClick={() => this.setState({ confirmingDelete: true })}>
                  Delete
                </button>
              ))}
          </div>
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
        </article>
      </>
    );
  }
}
