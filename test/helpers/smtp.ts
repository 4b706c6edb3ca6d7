// An SMTP server on loopback for tests (smtp-server): keeps every e-mail it takes, parsed
// (mailparser), with the envelope's sender and recipients; told to, it refuses every e-mail.
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';

export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  parsed: ParsedMail;
}

export class FakeSmtp {
  readonly mails: ReceivedMail[] = [];
  /** While true, every e-mail is refused (451, a temporary failure). */
  refusing = false;
  private server: SMTPServer | undefined;
  private port = 0;

  /** nodemailer's URL of this server (plain SMTP on loopback, no STARTTLS). */
  get url(): string {
    return `smtp://user:secret@127.0.0.1:${this.port}`;
  }

  static async start(): Promise<FakeSmtp> {
    const smtp = new FakeSmtp();
    smtp.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth: (_auth, _session, callback) => callback(null, { user: 'user' }),
      onData(stream, session, callback) {
        if (smtp.refusing) {
          stream.resume();
          const error = Object.assign(new Error('try again later'), { responseCode: 451 });
          stream.on('end', () => callback(error));
          return;
        }
        simpleParser(stream).then(
          (parsed) => {
            smtp.mails.push({
              envelopeFrom: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
              envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              parsed,
            });
            callback();
          },
          (error: Error) => callback(error),
        );
      },
    });
    await new Promise<void>((resolve) => smtp.server!.listen(0, '127.0.0.1', resolve));
    smtp.port = (smtp.server.server.address() as AddressInfo).port;
    return smtp;
  }

  /** The e-mails sent to an address. */
  to(address: string): ReceivedMail[] {
    return this.mails.filter((mail) => mail.envelopeTo.includes(address));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server!.close(() => resolve()));
  }
}

// smtp-server greets a new connection only after 100 ms, to catch clients that talk first (spam
// software). Our client is nodemailer, which waits for the greeting; the tests would wait 100 ms
// for each e-mail. These servers greet at once: SMTPConnection.init as smtp-server 3 has it, less
// the delay and the connection limit (which they do not set).
SMTPConnection.prototype.init = function (this: SMTPConnection) {
  this._setListeners(() => this.connectionReady());
};
