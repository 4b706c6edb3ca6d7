// Uploads: POST /user_uploads streamed to the file storage, downloads by Zulip's access rule,
// GET/DELETE /attachments, the size limit and the organization's quota, messages claiming the
// files they link to, and `attachment` events to the owner. Every test runs against both storage
// backends: the data directory and an S3-compatible bucket.
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { pollEvents, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { download, upload, type Part } from './helpers/files.js';
import { loadConfig } from '../src/config.js';
import { startS3 } from './helpers/s3.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { TestClock } from './helpers/clock.js';

/** A server on one storage backend, and what that backend holds under a key. */
interface Backend {
  server: TestServer;
  stored(key: string): Promise<string | undefined>;
  stop(): Promise<void>;
}

const limits = { maxFileUploadSizeMib: 1, uploadQuotaMib: 3 };

async function onDataDirectory(): Promise<Backend> {
  const server = await startTestServer(limits);
  const stored = (key: string) => readFile(join(server.config.dataDir, 'uploads', key), 'utf8').catch(() => undefined);
  return { server, stored, stop: () => server.stop() };
}

async function onS3(): Promise<Backend> {
  const s3 = await startS3();
  const server = await startTestServer({ ...limits, s3: s3.settings });
  return { server, stored: (key) => s3.stored(key), stop: async () => (await server.stop(), await s3.stop()) };
}

type Attachment = { id: number; name: string; path_id: string; size: number; messages: { id: number; date_sent: number }[] };
async function attachments(client: ApiClient) {
  const response = await client.get('/attachments');
  assertMatchesReference('GET /attachments', response.body);
  return response.body as { attachments: Attachment[]; upload_space_used: number };
}

/** A raw HTTP/1.1 connection to the server, for bodies sent the way no fetch would send them;
 * `answer()` waits for the next response on it. */
async function rawConnection(server: TestServer) {
  const socket = connect(server.parley.http.port, '127.0.0.1');
  let data = '';
  socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const answer = async () => {
    for (;;) {
      const headEnd = data.indexOf('\r\n\r\n');
      const length = Number(/\r\nContent-Length: (\d+)/i.exec(data.slice(0, headEnd))?.[1] ?? NaN);
      if (headEnd >= 0 && data.length >= headEnd + 4 + length) {
        const body = JSON.parse(data.slice(headEnd + 4, headEnd + 4 + length)) as Record<string, unknown>;
        const status = Number(data.split(' ')[1]);
        data = data.slice(headEnd + 4 + length);
        return { status, body };
      }
      if (socket.destroyed) throw new Error(`connection closed after ${JSON.stringify(data)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return { socket, answer };
}

for (const [name, start] of [['data directory', onDataDirectory], ['S3', onS3]] as const) {
  const uploads = suite<Backend>(`uploads (${name})`);

  uploads.before(async (context) => {
    Object.assign(context, await start());
  });
  uploads.after(async ({ stop }) => stop());

  uploads('an upload is stored, listed, announced, and served to its owner', async ({ server, stored }) => {
    const hamlet = await server.as('hamlet@zulip.com');
    const { queueId } = await register(hamlet, { event_types: ['attachment'] });
    const answer = await upload(hamlet, [{ name: 'notes für dich.txt', type: 'text/plain', bytes: 'to be or not' }]);
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    assertMatchesReference('POST /user_uploads', answer.body);
    const url = String(answer.body.url);
    assert.is(answer.body.uri, url);
    assert.is(answer.body.filename, 'notes für dich.txt');
    assert.match(url, /^\/user_uploads\/\d+\/[0-9a-f]{1,2}\/[A-Za-z0-9_-]{24}\/notes-für-dich\.txt$/);
    const pathId = url.slice('/user_uploads/'.length);
    assert.is(await stored(pathId), 'to be or not');

    const [event] = await pollEvents(hamlet, queueId, 1);
    assertEventMatchesReference(event!);
    assert.is(event!.op, 'add');
    const listed = (await attachments(hamlet)).attachments.find((attachment) => attachment.path_id === pathId);
    assert.equal([listed?.name, listed?.size, listed?.messages], ['notes für dich.txt', 12, []]);
    assert.equal((event!.attachment as Attachment).id, listed!.id);

    const served = await download(hamlet, encodeURI(url));
    assert.equal([served.status, served.type, served.bytes.toString()], [200, 'text/plain', 'to be or not']);
    assert.is(served.disposition, `inline; filename*=UTF-8''${encodeURIComponent('notes für dich.txt')}`);
  });

  uploads('a file is served to whoever may read a message linking to it, and to nobody else', async ({ server }) => {
    const hamlet = await server.as('hamlet@zulip.com');
    const othello = await server.as('othello@zulip.com');
    const cordelia = await server.as('cordelia@zulip.com');
    const { queueId } = await register(hamlet, { event_types: ['attachment'] });
    const url = String((await upload(hamlet, [{ name: 'plan.bin', bytes: Buffer.from([0, 1, 2, 255]) }])).body.url);
    assert.is((await download(othello, url)).status, 403, 'not linked anywhere yet');

    const cordeliaId = Number((await cordelia.get('/users/me')).body.user_id);
    const sent = await hamlet.post('/messages', { type: 'private', to: [cordeliaId], content: `[plan.bin](${url})` });
    assert.is(sent.status, 200);
    const events = await pollEvents(hamlet, queueId, 2);
    const update = events.find((event) => event.op === 'update') as Event;
    assertEventMatchesReference(update);
    assert.equal((update.attachment as Attachment).messages.map((message) => message.id), [sent.body.id]);

    const served = await download(cordelia, url);
    assert.equal([served.status, served.type, served.disposition, [...served.bytes]], [200, 'application/octet-stream', "attachment; filename*=UTF-8''plan.bin", [0, 1, 2, 255]]);
    assert.is((await download(othello, url)).status, 403, 'othello did not get the message');

    // Linking a file one may not read claims nothing: othello's message does not open it to Verona.
    await othello.post('/messages', { type: 'stream', to: 'Verona', topic: 'files', content: `[plan](${url})` });
    assert.is((await download(await server.as('iago@zulip.com'), url)).status, 403);

    // Edited away, the link no longer grants access.
    await hamlet.patch(`/messages/${sent.body.id}`, { content: 'never mind' });
    assert.is((await download(cordelia, url)).status, 403);
    assert.equal((await attachments(hamlet)).attachments.find((attachment) => `/user_uploads/${attachment.path_id}` === url)?.messages, []);

    assert.is((await download(hamlet, '/user_uploads/1/ab/AAAAAAAAAAAAAAAAAAAAAAAA/none.txt')).status, 404);
    assert.is((await download(server.anonymous, url)).status, 401);
  });

  uploads('a channel message links a file for the channel\'s readers', async ({ server }) => {
    const hamlet = await server.as('hamlet@zulip.com');
    const url = String((await upload(hamlet, [{ name: 'pic.png', type: 'image/png', bytes: 'png' }])).body.url);
    await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'files', content: `look [pic.png](${url})` });
    assert.is((await download(await server.as('othello@zulip.com'), url)).status, 200);
  });

  uploads('one file per upload, within the size limit and the quota; nothing kept of a refusal', async ({ server }) => {
    const iago = await server.as('iago@zulip.com');
    const refused = async (parts: Part[], msg: string) => {
      const answer = await upload(iago, parts);
      assert.equal([answer.status, answer.body.code, answer.body.msg], [400, 'BAD_REQUEST', msg]);
    };
    const before = await attachments(iago);
    await refused([], 'You must specify a file to upload');
    await refused([{ name: 'a.txt', bytes: 'a' }, { field: 'other', name: 'b.txt', bytes: 'b' }], 'You may only upload one file at a time');
    await refused([{ name: 'big.bin', bytes: Buffer.alloc(1024 * 1024 + 1) }], "File is larger than this server's configured maximum upload size (1 MiB).");
    const form = await fetch(`${iago.baseUrl}/api/v1/user_uploads`, { method: 'POST', headers: { ...iago.authHeader(), 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=b' });
    assert.is(((await form.json()) as { msg: string }).msg, 'You must specify a file to upload');
    assert.equal((await attachments(iago)).attachments, before.attachments);

    // The quota is 3 MiB: two 1 MiB files fit on top of the few bytes already there, a third does not.
    assert.ok(before.upload_space_used > 0 && before.upload_space_used < 1024 * 1024);
    const mib = Buffer.alloc(1024 * 1024, 7);
    assert.is((await upload(iago, [{ name: 'one.bin', bytes: mib }])).status, 200);
    assert.is((await upload(iago, [{ name: 'two.bin', bytes: mib }])).status, 200);
    const over = await upload(iago, [{ name: 'three.bin', bytes: mib }]);
    assert.equal([over.status, over.body.msg], [400, "Upload would exceed your organization's upload quota."]);
    const names = (await attachments(iago)).attachments.map((attachment) => attachment.name);
    assert.not.ok(names.includes('three.bin'));
  });

  uploads('a body refused part-way is read to its end and dropped, then answered; the connection serves on', async ({ server }) => {
    const iago = await server.as('iago@zulip.com');
    const { socket, answer } = await rawConnection(server);
    const auth = `Authorization: ${iago.authHeader().Authorization!}\r\nHost: 127.0.0.1`;
    // A second file is refused at its first bytes; the sender goes on sending what it declared.
    const start = '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\na\r\n--xyz\r\nContent-Disposition: form-data; name="more"; filename="b.txt"\r\n\r\n';
    const rest = Buffer.alloc(320 * 1024, 120);
    socket.write(`POST /api/v1/user_uploads HTTP/1.1\r\n${auth}\r\nContent-Type: multipart/form-data; boundary=xyz\r\nContent-Length: ${start.length + rest.length}\r\n\r\n${start}`);
    for (let at = 0; at < rest.length; at += 16 * 1024) {
      socket.write(rest.subarray(at, at + 16 * 1024));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const refused = await answer();
    assert.equal([refused.status, refused.body.msg], [400, 'You may only upload one file at a time']);
    socket.write(`GET /api/v1/users/me HTTP/1.1\r\n${auth}\r\n\r\n`);
    const me = await answer();
    socket.destroy();
    assert.equal([me.status, me.body.email], [200, 'iago@zulip.com'], 'the same connection serves the next request');
    assert.not.ok((await attachments(iago)).attachments.some((attachment) => attachment.name === 'a.txt'), 'nothing kept of the refused upload');
  });

  uploads('a body arriving a few bytes at a time gives the same file', async ({ server }) => {
    const hamlet = await server.as('hamlet@zulip.com');
    const form = new FormData();
    form.append('note', 'a field');
    // Bytes that look like the start of a delimiter inside the file.
    const bytes = Buffer.from('x\r\n--\r\n-y\r\n\u00ff');
    form.append('file', new Blob([bytes]), 'd.bin');
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    const body = Buffer.from(await request.arrayBuffer());
    const { socket, answer } = await rawConnection(server);
    socket.write(`POST /api/v1/user_uploads HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${hamlet.authHeader().Authorization!}\r\nContent-Type: ${request.headers.get('content-type')!}\r\nContent-Length: ${body.length}\r\n\r\n`);
    for (let at = 0; at < body.length; at += 7) {
      socket.write(body.subarray(at, at + 7));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const stored = await answer();
    socket.destroy();
    assert.is(stored.status, 200);
    assert.equal([...(await download(hamlet, String(stored.body.url))).bytes], [...bytes]);

    // A body that ends before its closing boundary stores nothing.
    const truncated = body.subarray(0, body.length - 10);
    const cut = await fetch(`${hamlet.baseUrl}/api/v1/user_uploads`, { method: 'POST', headers: { ...hamlet.authHeader(), 'Content-Type': request.headers.get('content-type')! }, body: truncated });
    assert.equal([cut.status, ((await cut.json()) as { msg: string }).msg], [400, 'Malformed multipart body']);
  });

  uploads('DELETE /attachments/{id}: only the owner\'s; the file and its record go', async ({ server, stored }) => {
    const prospero = await server.as('prospero@zulip.com');
    const othello = await server.as('othello@zulip.com');
    const answer = await upload(prospero, [{ name: 'gone.txt', bytes: 'soon gone' }]);
    const url = String(answer.body.url);
    const [record] = (await attachments(prospero)).attachments;
    const { queueId } = await register(prospero, { event_types: ['attachment'] });
    for (const [client, id] of [[othello, record!.id], [prospero, 999999]] as const) {
      const response = await client.delete(`/attachments/${id}`);
      assert.equal([response.status, response.body.msg], [400, 'Invalid attachment']);
      assertMatchesReference('DELETE /attachments/{attachment_id}', response.body, {}, 400);
    }
    const removed = await prospero.delete(`/attachments/${record!.id}`);
    assertMatchesReference('DELETE /attachments/{attachment_id}', removed.body);
    const [event] = await pollEvents(prospero, queueId, 1);
    assertEventMatchesReference(event!);
    assert.equal([event!.op, event!.attachment], ['remove', { id: record!.id }]);
    assert.equal((await attachments(prospero)).attachments, []);
    assert.is(await stored(url.slice('/user_uploads/'.length)), undefined);
    assert.is((await download(prospero, url)).status, 404);
  });

  uploads('a temporary URL serves the file without credentials, for whoever it was made for, until they lose the file or their key', async ({ server }) => {
    const prospero = await server.as('prospero@zulip.com');
    const url = String((await upload(prospero, [{ name: 'brief.txt', type: 'text/plain', bytes: 'temporary' }])).body.url);
    const answer = await prospero.get(url);
    assertMatchesReference('GET /user_uploads/{realm_id_str}/{filename}', answer.body);
    const temporary = String(answer.body.url);
    assert.match(temporary, /^\/user_uploads\/temporary\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\/brief\.txt$/);
    const served = await download(server.anonymous, temporary);
    assert.equal([served.status, served.type, served.bytes.toString()], [200, 'text/plain', 'temporary']);
    const [token] = temporary.split('/').slice(-2);
    const forged = `${Buffer.from(JSON.stringify([url.slice('/user_uploads/'.length), 1, 9e12])).toString('base64url')}.${token!.split('.')[1]}`;
    assert.is((await download(server.anonymous, `/user_uploads/temporary/${forged}/brief.txt`)).status, 404, 'an edited token is refused');
    const othello = await server.as('othello@zulip.com');
    const refused = await othello.get(url);
    assert.equal([refused.status, refused.body.msg], [400, 'You are not authorized to view this file.']);
    assert.equal((await prospero.get('/user_uploads/1/ab/AAAAAAAAAAAAAAAAAAAAAAAA/none.txt')).body.msg, 'Invalid filename');
    await prospero.post('/users/me/api_key/regenerate');
    assert.is((await download(server.anonymous, temporary)).status, 404, 'a new API key revokes the URL');
    await assertRequiresCredentials(server.anonymous, [['GET', url]]);
  });

  uploads('credentials are required; register reports the upload limits', async ({ server }) => {
    await assertRequiresCredentials(server.anonymous, [['POST', '/user_uploads'], ['GET', '/attachments'], ['DELETE', '/attachments/1']]);
    const { state } = await register(await server.as('hamlet@zulip.com'), { fetch_event_types: ['realm'] });
    assert.equal([state.max_file_upload_size_mib, state.realm_upload_quota_mib], [1, 3]);
  });

  uploads.run();
}

const s3Settings = suite('S3 settings');

s3Settings('PARLEY_S3_* set the bucket; a bad endpoint is refused, and a missing bucket stops the start', async () => {
  assert.is(loadConfig({}).s3, null);
  assert.equal(loadConfig({ PARLEY_S3_BUCKET: 'files', PARLEY_S3_ACCESS_KEY: 'k', PARLEY_S3_SECRET_KEY: 's' }).s3, { endpoint: 'https://s3.amazonaws.com', region: 'us-east-1', bucket: 'files', accessKey: 'k', secretKey: 's' });
  assert.throws(() => loadConfig({ PARLEY_S3_BUCKET: 'files', PARLEY_S3_ENDPOINT: 'ftp://files.example' }), /PARLEY_S3_ENDPOINT must be an http\(s\) URL, got 'ftp:\/\/files.example'/);
  const s3 = await startS3();
  try {
    const missing = { ...s3.settings, bucket: 'no-such-bucket' };
    const started = await startTestServer({ s3: missing }).then(
      async (server) => (await server.stop(), 'started'),
      (error: unknown) => String(error),
    );
    assert.match(started, `the S3 bucket 'no-such-bucket' does not exist at ${s3.settings.endpoint}`);
  } finally {
    await s3.stop();
  }
});

s3Settings.run();

const temporaryUrls = suite('temporary file URLs');

temporaryUrls('a temporary URL lasts a minute, as Zulip\'s', async () => {
  const clock = new TestClock();
  const server = await startTestServer({ ...limits, clock });
  try {
    const hamlet = await server.as('hamlet@zulip.com');
    const url = String((await upload(hamlet, [{ name: 'soon.txt', type: 'text/plain', bytes: 'gone soon' }])).body.url);
    const temporary = String((await hamlet.get(url)).body.url);
    clock.advance(59_000);
    assert.is((await download(server.anonymous, temporary)).status, 200);
    clock.advance(2_000);
    assert.is((await download(server.anonymous, temporary)).status, 404, 'expired');
  } finally {
    await server.stop();
  }
});

temporaryUrls.run();
