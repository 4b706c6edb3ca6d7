// Management CLI: `npm run manage -- <command> [options]`. Works on the data directory directly,
// so it refuses to run while a server has that directory open (the server keeps realms in memory);
// with PARLEY_NATS_URL set, its realm and user commands go to the running cluster instead.
import { parseArgs } from 'node:util';
import { backingUpFile, claimDataDir, claimFile, DataDirInUse, holderOf, movingFile } from '../claims.js';
import { openShards } from '../setup.js';
import { backup, BackupError, restore, verify, type Manifest } from './backup.js';
import { ClusterAdmin } from '../cluster/admin.js';
import { loadConfig, type ClusterSettings, type Config } from '../config.js';
import { EventQueues } from '../events/queues.js';
import { ApiError } from '../errors.js';
import type { RealmHandle } from '../realm/handle.js';
import { InvalidRealmError, Realms, type RealmCreator } from '../realm/registry.js';
import { RealmShards } from '../realm/shards.js';
import { realmDigest } from '../store/realmData.js';
import type { Store } from '../store/store.js';
import { hashNewPassword } from '../users/password.js';
import { exportRealm, ExportError } from './zulipExport.js';
import { importRealm, ImportError, type ImportSummary } from './zulipImport.js';
import { MoveError, moveRealm, type MoveSummary } from './moveRealm.js';
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
  rebuild-search-index                     build the full-text search index anew from every message
  export --realm S --to DIR                write the realm in Zulip's export format into the empty
                                           DIR, and DIR.tar.gz (works while the server runs)
  import --from DIR|FILE.tar.gz --subdomain S
                                           import a Zulip export as a new realm
  move-realm --realm S --to-shard K        move the realm whole to shard K (PARLEY_REALM_THREADS:
                                           shards 0 to its value less one); run it again if it
                                           stopped half-way
--realm names a realm by subdomain; without it, the default realm. The data directory is
PARLEY_DATA_DIR (default ./data). With PARLEY_NATS_URL set, the realm and user commands go to the
running cluster (a node makes the realm; each realm is asked through its owner); digest, backup,
verify, restore, export, import, move-realm and rebuild-search-index always work on this machine's
data directory.`;

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
  'to-shard': { type: 'string' },
} as const;

class UsageError extends Error {}

const roleByName = new Map<string, Role>(Object.entries(Role));

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${flag} is required`);
  return value;
}

/** The organizations realm and user commands reach: the data directory's, or (PARLEY_NATS_URL set)
 * a running cluster's, each realm asked through its owner. */
interface Organizations extends RealmCreator {
  /** By subdomain; without one, the default realm. */
  realm(subdomain: string | undefined): Promise<RealmHandle | undefined>;
  list(): Promise<{ id: number; subdomain: string; name: string }[]>;
  /** Only on a data directory: a digest of the realm's rows. */
  digest?(realm: RealmHandle): string;
  /** Only on a data directory (the server stopped): a Zulip export made a new realm. */
  importRealm?(from: string, subdomain: string): Promise<ImportSummary>;
  /** Only on a data directory (the server stopped): the realm moved whole to another shard. */
  moveRealm?(subdomain: string, shard: number): Promise<MoveSummary>;
  /** Only on a data directory: the full-text index built anew; answers how many messages it holds. */
  rebuildSearchIndex?(progress: (done: number, total: number, shard?: number) => void): number;
  close(): Promise<void>;
}

/** The data directory's organizations: every shard's (ARCHITECTURE.md, "Several realm threads"). */
async function onDataDirectory(config: Config, command: string | undefined): Promise<Organizations> {
  const release = claimDataDir(config.dataDir);
  // Only a command that places a realm opens the shards PARLEY_REALM_THREADS asks for that are not on disk yet.
  let stores: Store[];
  try {
    stores = openShards(config, { placing: command === 'create-realm' || command === 'import' || command === 'move-realm' });
  } catch (error) {
    release();
    throw error;
  }
  // The queues a stopped server saved (in shard 0) get the events of what the CLI changes, as they would live.
  const queues = new EventQueues(stores[0]!);
  await queues.restore();
  const realms = new RealmShards(
    stores.map((store) => new Realms(store, config, queues)),
    config.realmThreads,
  );
  const storeOf = (realmId: number) => stores.find((store) => store.realms.get(realmId) !== undefined)!;
  return {
    realm: async (subdomain) => (subdomain === undefined ? realms.defaultRealm() : realms.bySubdomainName(subdomain)),
    create: (input) => realms.create(input),
    list: async () =>
      stores
        .flatMap((store) => [...store.realms.getRange()].map(({ value: { id, subdomain, name } }) => ({ id, subdomain, name })))
        .sort((a, b) => a.id - b.id),
    digest: (realm) => realmDigest(storeOf(realm.realm.id), realm.realm.id),
    rebuildSearchIndex: (progress) => stores.reduce((indexed, store, shard) => indexed + store.rebuildSearchIndex((done, total) => progress(done, total, stores.length > 1 ? shard : undefined)), 0),
    importRealm: (from, subdomain) => importRealm(realms, from, subdomain),
    async moveRealm(subdomain, shard) {
      // A backup started meanwhile refuses: it would copy the shards at different moments.
      const moving = claimFile(movingFile(config.dataDir), (holder) => new MoveError(`${holder} is moving a realm`));
      try {
        const backup = holderOf(backingUpFile(config.dataDir));
        if (backup !== undefined) throw new MoveError(`process ${backup} is backing up ${config.dataDir}: move the realm once it is done`);
        return await moveRealm(stores, subdomain, shard);
      } finally {
        moving();
      }
    },
    async close() {
      await realms.idle();
      await queues.persist();
      await Promise.all(stores.map((store) => store.close()));
      release();
    },
  };
}

async function onCluster(settings: ClusterSettings, config: Config): Promise<Organizations> {
  const admin = await ClusterAdmin.connect(settings, config.log);
  return {
    realm: (subdomain) => admin.realm(subdomain),
    create: (input) => admin.create(input),
    list: async () =>
      Promise.all(
        (await admin.list()).map(async (realm) => {
          const { id, subdomain, name } = await realm.ask('realm.summary', null, {});
          return { id, subdomain, name };
        }),
      ),
    close: () => admin.close(),
  };
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({ args: argv, options, allowPositionals: true });
  const command = positionals[0];
  const config = loadConfig();
  // A backup reads what a running server writes; verify and restore need no server at all.
  const summary = (manifest: Manifest) => console.log(JSON.stringify({ format: manifest.format, realms: manifest.realms.length, stores: manifest.stores.length, bytes: manifest.stores.reduce((bytes, store) => bytes + store.bytes, 0) }));
  if (command === 'backup') return summary(await backup(config.dataDir, required(values.to, 'to')));
  if (command === 'verify') return summary(await verify(required(values.from, 'from')));
  if (command === 'restore') return summary(await restore(required(values.from, 'from'), config.dataDir));
  if (command === 'export') return console.log(JSON.stringify(await exportRealm(config.dataDir, required(values.realm, 'realm'), required(values.to, 'to'), config.externalHost)));
  const organizations = config.cluster ? await onCluster(config.cluster, config) : await onDataDirectory(config, command);
  const realmOf = async (): Promise<RealmHandle> => {
    const realm = await organizations.realm(values.realm);
    if (!realm) throw new UsageError(`no realm '${values.realm ?? '(default)'}'`);
    return realm;
  };
  const passwordHash = values.password === undefined ? null : await hashNewPassword(values.password, config);
  try {
    switch (command) {
      case 'create-realm': {
        const email = required(values['owner-email'], 'owner-email');
        const fullName = required(values['owner-name'], 'owner-name');
        // An empty subdomain is the organization at the root domain.
        if (values.subdomain === undefined) throw new UsageError('--subdomain is required');
        const realm = await organizations.create({ subdomain: values.subdomain, name: required(values.name, 'name') });
        const owner = await realm.ask('users.create', null, { email, fullName, role: Role.owner, passwordHash });
        console.log(JSON.stringify({ realm_id: realm.realm.id, owner_id: owner.userId, api_key: owner.apiKey }));
        break;
      }
      case 'create-user': {
        const role = roleByName.get(values.role);
        if (role === undefined) throw new UsageError(`unknown role '${values.role}'`);
        const user = await (await realmOf()).ask('users.create', null, {
          email: required(values.email, 'email'),
          fullName: required(values.name, 'name'),
          role,
          passwordHash,
        });
        console.log(JSON.stringify({ user_id: user.userId, api_key: user.apiKey }));
        break;
      }
      case 'api-key': {
        const { apiKey } = await (await realmOf()).ask('users.apiKey', null, { email: required(values.email, 'email') });
        console.log(apiKey);
        break;
      }
      case 'regenerate-api-key': {
        const realm = await realmOf();
        const { userId } = await realm.ask('users.apiKey', null, { email: required(values.email, 'email') });
        console.log((await realm.ask('users.regenerateApiKey', null, { userId })).apiKey);
        break;
      }
      case 'import': {
        if (!organizations.importRealm) throw new UsageError('import writes a data directory: run it without PARLEY_NATS_URL, with the server stopped');
        console.log(JSON.stringify(await organizations.importRealm(required(values.from, 'from'), required(values.subdomain, 'subdomain'))));
        break;
      }
      case 'move-realm': {
        if (!organizations.moveRealm) throw new UsageError('move-realm writes a data directory: run it without PARLEY_NATS_URL, with the server stopped');
        if (values.realm === undefined) throw new UsageError('--realm is required');
        console.log(JSON.stringify(await organizations.moveRealm(values.realm, Number(required(values['to-shard'], 'to-shard')))));
        break;
      }
      case 'digest': {
        if (!organizations.digest) throw new UsageError('digest reads a data directory: run it without PARLEY_NATS_URL, on a stopped node\'s directory');
        console.log(organizations.digest(await realmOf()));
        break;
      }
      case 'rebuild-search-index': {
        if (!organizations.rebuildSearchIndex) throw new UsageError('rebuild-search-index writes a data directory: run it without PARLEY_NATS_URL, on a stopped node\'s directory');
        const indexed = organizations.rebuildSearchIndex((done, total, shard) => console.error(`indexed ${done} of ${total} messages${shard === undefined ? '' : ` in shard ${shard}`}`));
        console.log(JSON.stringify({ indexed }));
        break;
      }
      case 'list-realms':
        for (const { id, subdomain, name } of await organizations.list()) console.log(`${id}\t${subdomain || '(root)'}\t${name}`);
        break;
      default:
        throw new UsageError(command === undefined ? 'no command given' : `unknown command '${command}'`);
    }
  } finally {
    await organizations.close();
  }
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) console.error(`${error.message}\n\n${usage}`);
  else if (error instanceof ApiError || error instanceof DataDirInUse || error instanceof MoveError || error instanceof InvalidRealmError || error instanceof BackupError || error instanceof ExportError || error instanceof ImportError) console.error(`error: ${error.message}`);
  else throw error;
  process.exitCode = 2;
}
