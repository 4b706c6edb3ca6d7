// A WebSocket reader that stops reading: the server cuts it off (4008) once its buffered frames
// pass the limit, instead of holding memory for it, and the client resumes from its last event ID
// without losing or repeating a message. A flood of up to 600 large messages: a slow test, so it
// runs in this tier.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CloseCode } from '../../src/events/closeCodes.js';
import type { ApiClient } from '../helpers/client.js';
import { register, StreamClient } from '../helpers/events.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const open = (server: TestServer, client: ApiClient): Promise<StreamClient> =>
  StreamClient.open(`${server.baseUrl.replace('http', 'ws')}/api/v1/events/socket`, client.authHeader());

const slow = suite<{ server: TestServer }>('event socket and a slow reader');

slow.before(async (context) => {
  context.server = await startTestServer({ socketMaxBackpressureBytes: 64 * 1024 });
});
slow.after(async ({ server }) => server.stop());

slow('a reader that stops reading is cut off (4008) and resumes without losing an event', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const { queueId } = await register(hamlet, { event_types: ['message'] });
  const stream = await open(server, hamlet);
  stream.send({ op: 'attach', queue_id: queueId, last_event_id: -1 });
  await stream.until((s) => s.frames.length >= 1);
  const tcp = (stream.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  tcp.pause();
  const queue = server.parley.queues.get(queueId, server.parley.realms.forHost('')!.realm.id, Number((await hamlet.get('/users/me')).body.user_id));
  const sent: number[] = [];
  const body = 'x'.repeat(9000);
  // Enough to fill the kernel's loopback buffers and then the server's limit; bounded by count.
  // The paused client cannot see the cut-off yet: the server's side shows it.
  for (let i = 0; i < 600 && queue.consumer !== null; i++) {
    const response = await othello.post('/messages', { type: 'stream', to: 'Verona', topic: 'flood', content: `${i} ${body}` });
    sent.push(Number(response.body.id));
  }
  assert.is(queue.consumer, null, 'the server let the slow socket go');
  tcp.resume();
  await stream.until((s) => s.closed !== undefined, 10_000);
  assert.is(stream.closed!.code, CloseCode.tooSlow);
  const seen = stream.events();
  const resumed = await open(server, hamlet);
  resumed.send({ op: 'attach', queue_id: queueId, last_event_id: seen.at(-1)?.id ?? -1 });
  await resumed.until((s) => seen.length + s.events().length >= sent.length, 10_000);
  const ids = [...seen, ...resumed.events()].map((event) => (event.message as { id: number }).id);
  assert.equal(ids, sent, 'every message exactly once, in order');
  resumed.close();
});

slow.run();
