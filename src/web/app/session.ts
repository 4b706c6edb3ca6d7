// Signing in and out: the key is kept for the browser tab's session (sessionStorage), never longer.
import { call, type Credentials } from './api.js';

export interface Session extends Credentials {
  userId: number;
}

const KEY = 'parley.session';

export function savedSession(): Session | null {
  const text = sessionStorage.getItem(KEY);
  return text ? (JSON.parse(text) as Session) : null;
}

function keep(answer: { api_key: string; email: string; user_id: number }): Session {
  const session = { email: answer.email, apiKey: answer.api_key, userId: answer.user_id };
  sessionStorage.setItem(KEY, JSON.stringify(session));
  return session;
}

type KeyAnswer = { api_key: string; email: string; user_id: number };

export const signIn = async (username: string, password: string): Promise<Session> => keep(await call<KeyAnswer>('POST', '/fetch_api_key', { username, password }));

/** Development mode's one-click sign-in. */
export const devSignIn = async (username: string): Promise<Session> => keep(await call<KeyAnswer>('POST', '/dev_fetch_api_key', { username }));

/** The demo users of a development server; empty elsewhere. */
export async function devUsers(): Promise<string[]> {
  try {
    const answer = await call<{ direct_admins: { email: string }[]; direct_users: { email: string }[] }>('GET', '/dev_list_users');
    return [...answer.direct_admins, ...answer.direct_users].map((entry) => entry.email);
  } catch {
    return [];
  }
}

export function signOut(): void {
  sessionStorage.removeItem(KEY);
}
