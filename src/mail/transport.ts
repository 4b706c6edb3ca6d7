// The mail transport (nodemailer over SMTP, PARLEY_SMTP_URL): one pooled transport per URL, every
// e-mail from exactly PARLEY_EMAIL_FROM.
import { createTransport, type Transporter } from 'nodemailer';
import type { MailSettings } from '../config.js';

/** One e-mail: a text and an HTML part, and any extra headers (List-Unsubscribe). */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
}

const transports = new Map<string, Transporter>();

function transportFor(url: string): Transporter {
  let transport = transports.get(url);
  if (!transport) transports.set(url, (transport = createTransport(url)));
  return transport;
}

/** Sends one e-mail; rejects when the SMTP server cannot be reached or refuses it. */
export async function sendMail(settings: MailSettings, mail: Mail): Promise<void> {
  await transportFor(settings.url).sendMail({ from: settings.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, headers: mail.headers });
}
