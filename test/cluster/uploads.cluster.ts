// Uploads in a cluster live in an S3-compatible bucket that every node shares: a file uploaded
// through one node is served by another, and removed through either.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startCluster } from '../helpers/cluster.js';
import { download, upload } from '../helpers/files.js';
import { startS3 } from '../helpers/s3.js';

test('a file uploaded through node A is served by node B, and gone from both once deleted', async () => {
  const s3 = await startS3();
  const { endpoint, region, bucket, accessKey, secretKey } = s3.settings;
  const cluster = await startCluster({
    nodes: 2,
    env: { PARLEY_S3_ENDPOINT: endpoint, PARLEY_S3_REGION: region, PARLEY_S3_BUCKET: bucket, PARLEY_S3_ACCESS_KEY: accessKey, PARLEY_S3_SECRET_KEY: secretKey },
  });
  try {
    const [a, b] = cluster.nodes as [typeof cluster.nodes[0], typeof cluster.nodes[0]];
    const hamletOnA = await cluster.client(a, 'hamlet@zulip.com');
    const hamletOnB = await cluster.client(b, 'hamlet@zulip.com');
    const answer = await upload(hamletOnA, [{ name: 'minutes.txt', type: 'text/plain', bytes: 'agreed: ship it' }]);
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    const url = String(answer.body.url);
    assert.is(await s3.stored(url.slice('/user_uploads/'.length)), 'agreed: ship it');
    const served = await download(hamletOnB, url);
    assert.equal([served.status, served.type, served.bytes.toString()], [200, 'text/plain', 'agreed: ship it']);

    const { attachments } = (await hamletOnB.get('/attachments')).body as { attachments: { id: number; path_id: string }[] };
    const record = attachments.find((attachment) => `/user_uploads/${attachment.path_id}` === url);
    assert.is((await hamletOnB.delete(`/attachments/${record!.id}`)).status, 200);
    assert.is(await s3.stored(url.slice('/user_uploads/'.length)), undefined);
    assert.is((await download(hamletOnA, url)).status, 404);
  } finally {
    await cluster.stop();
    await s3.stop();
  }
});

test.run();
