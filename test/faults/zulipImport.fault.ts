// Bad Zulip exports: each malformed or inconsistent export (and each bad argument) is refused with
// a message naming the problem, before anything is written — the data directory keeps exactly the
// realms it had.
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDataDir } from '../helpers/operator.js';
import { runManage } from '../helpers/process.js';
import { damagedExport, dataDirContents, zulipExportFixture as fixture } from '../helpers/zulipFixture.js';

type Row = Record<string, unknown>;

test('every kind of bad export is refused with a clear message and changes nothing', () => {
  const dataDir = tempDataDir();
  const copies: string[] = [];
  const damaged = (file: string, edit: (data: Record<string, unknown[]>) => void) => {
    const dir = damagedExport(file, edit);
    copies.push(dir);
    return dir;
  };
  const replaced = (file: string, text: string) => {
    const dir = damaged(file, () => undefined);
    writeFileSync(join(dir, file), text);
    return dir;
  };
  try {
    assert.is(runManage(['import', '--from', fixture, '--subdomain', 'zephyr'], { PARLEY_DATA_DIR: dataDir }).status, 0);
    const before = dataDirContents(dataDir, 'zephyr');
    const withoutRealmJson = damaged('realm.json', () => undefined);
    rmSync(join(withoutRealmJson, 'realm.json'));
    const gap = damaged('realm.json', () => undefined);
    cpSync(join(gap, 'messages-000001.json'), join(gap, 'messages-000003.json'));
    const refusals: [string[], RegExp][] = [
      [['--from', fixture], /--subdomain is required/],
      [['--subdomain', 'other'], /--from is required/],
      [['--from', fixture, '--subdomain', 'Not A Subdomain'], /invalid subdomain/],
      [['--from', join(fixture, 'missing'), '--subdomain', 'other'], /does not exist/],
      [['--from', join(fixture, 'realm.json'), '--subdomain', 'other'], /neither a directory nor a readable \.tar\.gz/],
      [['--from', withoutRealmJson, '--subdomain', 'other'], /has no realm\.json: not a Zulip export/],
      [['--from', replaced('realm.json', '{"zerver_realm": ['), '--subdomain', 'other'], /realm\.json cannot be read/],
      [['--from', replaced('realm.json', '[]'), '--subdomain', 'other'], /realm\.json is not a JSON object of tables/],
      [['--from', damaged('realm.json', (data) => delete data.zerver_stream), '--subdomain', 'other'], /realm\.json has no zerver_stream/],
      [['--from', damaged('realm.json', (data) => (data.zerver_realm = [])), '--subdomain', 'other'], /zerver_realm should have one row, not 0/],
      [['--from', damaged('realm.json', (data) => ((data.zerver_userprofile![1] as Row).role = 'member')), '--subdomain', 'other'], /zerver_userprofile\[1\]\.role should be a number/],
      [['--from', damaged('realm.json', (data) => ((data.zerver_stream![0] as Row).creator = 'iris')), '--subdomain', 'other'], /zerver_stream\[0\]\.creator should be number or null/],
      [['--from', damaged('realm.json', (data) => ((data.zerver_subscription![0] as Row).user_profile = 55)), '--subdomain', 'other'], /subscription 1 is of user 55, who is not in the export/],
      [['--from', damaged('realm.json', (data) => ((data.zerver_subscription![0] as Row).recipient = 56)), '--subdomain', 'other'], /subscription 1 is to recipient 56/],
      [['--from', damaged('realm.json', (data) => ((data.zerver_recipient![4] as Row).type_id = 57)), '--subdomain', 'other'], /recipient 30 names stream 57/],
      [['--from', damaged('realm.json', (data) => ((data.zerver_reaction![0] as Row).message = 999)), '--subdomain', 'other'], /a reaction is to message 999/],
      [['--from', damaged('realm.json', (data) => ((data.zerver_userprofile![1] as Row).delivery_email = 'IRIS@zephyr.example')), '--subdomain', 'other'], /two users have the e-mail address iris@zephyr\.example/],
      [['--from', damaged('realm.json', (data) => ((data.zerver_customprofilefield![0] as Row).field_data = '{oops')), '--subdomain', 'other'], /custom profile field 70 has field_data that is not a JSON object/],
      [['--from', damaged('realm.json', (data) => ((data.zerver_customprofilefield![0] as Row).field_type = 6)), '--subdomain', 'other'], /the value of person-picker field 70 for user 11 is not a JSON list of user IDs/],
      [['--from', damaged('realm.json', (data) => (data.zerver_namedusergroup![8] = { ...(data.zerver_namedusergroup![8] as Row), id: undefined, usergroup_ptr: undefined })), '--subdomain', 'other'], /zerver_namedusergroup\[8\] has neither usergroup_ptr nor id/],
      [['--from', damaged('messages-000001.json', (data) => ((data.zerver_message![1] as Row).recipient = 77)), '--subdomain', 'other'], /message 101 is to recipient 77/],
      [['--from', damaged('messages-000001.json', (data) => ((data.zerver_message![0] as Row).edit_history = '{}')), '--subdomain', 'other'], /message 100 has an edit_history that is not a JSON list/],
      [['--from', damaged('messages-000001.json', (data) => data.zerver_message!.push(data.zerver_message![0])), '--subdomain', 'other'], /message 100 appears twice/],
      [['--from', damaged('messages-000001.json', (data) => ((data.zerver_usermessage![0] as Row).message = 5)), '--subdomain', 'other'], /UserMessage row is of message 5, which is not in this file/],
      [['--from', damaged('messages-000001.json', (data) => ((data.zerver_usermessage![0] as Row).user_profile = 6)), '--subdomain', 'other'], /UserMessage row is of user 6/],
      [['--from', gap, '--subdomain', 'other'], /messages-000002\.json is missing/],
    ];
    for (const [args, message] of refusals) {
      const result = runManage(['import', ...args], { PARLEY_DATA_DIR: dataDir });
      assert.is(result.status, 2, `${args.join(' ')}: ${result.stdout}`);
      assert.match(result.stderr, message);
    }
    assert.equal(dataDirContents(dataDir, 'zephyr'), before, 'the data directory holds what it held');
  } finally {
    for (const dir of [dataDir, ...copies.map((copy) => dirname(copy))]) rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
