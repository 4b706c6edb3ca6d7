// Management CLI: `npm run manage -- <command> [options]`. Works on the data directory directly,
// so it refuses to run while a server has that directory open (the server keeps realms in memory).
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { openStore, pidFile } from '../app.js';
import { backup, BackupError, restore, verify, type Manifest } from './backup.js';
import { loadConfig } from '../config.js';
import { EventQueues } from '../events/queues.js';
import { ApiError } from '../errors.js';
import type { RealmActor } from '../realm/actor.js';
import { InvalidRealmError, Realms } from '../realm/registry.js';
import { realmDigest } from '../store/realmData.js';
import { hashNewPassword } from '../users/password.js';
import { exportRealm, ExportError } from './zulipExport.js';
import { importRealm, ImportError } from './zulipImport.js';
import { Role } from '../users/records.js';

const usage = `usage: npm run manage -- <command> [options]
  create-realm --subdomain S --name NAME --owner-email E --owner-name NAME [--password P]
  create-user [--realm S] --email E --name NAME [--role owner|administrator|moderator|member|guest] [--password P]
  api-key [--realm S] --email E            print the user's API key
  regenerate-api-key [--realm S] --email E print a new API key; the old one stops working
  list-realms
  digest [--realm S]                       print a digest of the realm's rows (two data directories
                                           with the realm in the same state print the same)
  backup --to DIR                          copy the data directory into the empty DIR, with a
                                           manifest (works while the server runs)
  verify --from DIR                        check a backup against its manifest
  restore --from DIR                       restore a backup into the (empty) data directory
  export --realm S --to DIR                write the realm in Zulip's export format into the empty
                                           DIR, and DIR.tar.gz (works while the server runs)
  import --from DIR|FILE.tar.gz --subdomain S
                                           import a Zulip export as a new realm
--realm names a realm by subdomain; without it, the default realm. The data directory is
PARLEY_DATA_DIR (default ./data).`;

const options = {
  subdomain: { type: 'string' },
  realm: { type: 'string' },
  name: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string', default: 'member' },
  password: { type: 'string' },
  'owner-email': { type: 'string' },
  'owner-name': { type: 'string' },
  to: { type: 'string' },
  from: { type: 'string' },
} as const;

class UsageError extends Error {}

const roleByName = new Map<string, Role>(Object.entries(Role));

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${flag} is required`);
  return value;
}

function serverRunning(dataDir: string): boolean {
  const file = pidFile(dataDir);
  if (!existsSync(file)) return false;
  try {
    process.kill(Number(readFileSync(file, 'utf8')), 0);
    return true;
  } catch {
    return false;
  }
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({ args: argv, options, allowPositionals: true });
  const command = positionals[0];
  const config = loadConfig();
  // A backup reads what a running server writes; verify and restore need no server at all.
  const summary = (manifest: Manifest) => console.log(JSON.stringify({ format: manifest.format, realms: manifest.realms.length, bytes: manifest.store.bytes, sha256: manifest.store.sha256 }));
  if (command === 'backup') return summary(await backup(config.dataDir, required(values.to, 'to')));
  if (command === 'verify') return summary(await verify(required(values.from, 'from')));
  if (command === 'restore') return summary(await restore(required(values.from, 'from'), config.dataDir));
  if (command === 'export') return console.log(JSON.stringify(await exportRealm(config.dataDir, required(values.realm, 'realm'), required(values.to, 'to'), config.externalHost)));
  if (serverRunning(config.dataDir)) throw new UsageError(`a server is running on ${config.dataDir}; stop it first`);
  const store = openStore(config);
  // The queues a stopped server saved get the events of what the CLI changes, as they would live.
  const queues = new EventQueues(store);
  await queues.restore();
  const realms = new Realms(store, config, queues);
  const realmOf = (): RealmActor => {
    const realm = values.realm === undefined ? realms.forHost('') : realms.bySubdomainName(values.realm);
    if (!realm) throw new UsageError(`no realm '${values.realm ?? '(default)'}'`);
    return realm;
  };
  const passwordHash = values.password === undefined ? null : await hashNewPassword(values.password);
  try {
    switch (command) {
      case 'create-realm': {
        const email = required(values['owner-email'], 'owner-email');
        const fullName = required(values['owner-name'], 'owner-name');
        // An empty subdomain is the organization at the root domain.
        if (values.subdomain === undefined) throw new UsageError('--subdomain is required');
        const realm = await realms.create({ subdomain: values.subdomain, name: required(values.name, 'name') });
        const owner = await realm.ask('users.create', null, { email, fullName, role: Role.owner, passwordHash });
        console.log(JSON.stringify({ realm_id: realm.realm.id, owner_id: owner.userId, api_key: owner.apiKey }));
        break;
      }
      case 'create-user': {
        const role = roleByName.get(values.role);
        if (role === undefined) throw new UsageError(`unknown role '${values.role}'`);
        const user = await realmOf().ask('users.create', null, {
          email: required(values.email, 'email'),
          fullName: required(values.name, 'name'),
          role,
          passwordHash,
        });
        console.log(JSON.stringify({ user_id: user.userId, api_key: user.apiKey }));
        break;
      }
      case 'api-key': {
        const { apiKey } = await realmOf().ask('users.apiKey', null, { email: required(values.email, 'email') });
        console.log(apiKey);
        break;
      }
      case 'regenerate-api-key': {
        const realm = realmOf();
        const { userId } = await realm.ask('users.apiKey', null, { email: required(values.email, 'email') });
        console.log((await realm.ask('users.regenerateApiKey', null, { userId })).apiKey);
        break;
      }
      case 'import':
        console.log(JSON.stringify(await importRealm(realms, required(values.from, 'from'), required(values.subdomain, 'subdomain'))));
        break;
      case 'digest':
        console.log(realmDigest(store, realmOf().realm.id));
        break;
      case 'list-realms':
        for (const { value } of store.realms.getRange()) console.log(`${value.id}\t${value.subdomain || '(root)'}\t${value.name}`);
        break;
      default:
        throw new UsageError(command === undefined ? 'no command given' : `unknown command '${command}'`);
    }
  } finally {
    await realms.idle();
    await queues.persist();
    await store.close();
  }
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) console.error(`${error.message}\n\n${usage}`);
  else if (error instanceof ApiError || error instanceof InvalidRealmError || error instanceof BackupError || error instanceof ExportError || error instanceof ImportError) console.error(`error: ${error.message}`);
  else throw error;
  process.exitCode = 2;
}
