// HTTP Basic credentials: the Authorization header's e-mail (or the dummy form) and API key, and
// the user they name.

/** Whose request it is, once its credentials are checked. */
export interface Principal {
  userId: number;
  role: number;
  isBot: boolean;
  /** An incoming-webhook bot: its key serves webhooks and sending messages only. */
  incomingWebhook: boolean;
}

export interface BasicCredentials {
  username: string;
  password: string;
}

export function parseBasic(header: string): BasicCredentials | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
