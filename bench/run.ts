// `npm run bench -- <name>`: runs one benchmark and prints its results as Markdown.
const benches: Record<string, () => Promise<{ default: () => Promise<void> }>> = {
  startup: () => import('./startup.ts'),
  tokens: () => import('./tokens.ts'),
  'token-flood': () => import('./token-flood.ts'),
  events: () => import('./events.ts'),
  fleet: () => import('./fleet.ts'),
  'fleet-scale': () => import('./fleet-scale.ts'),
  status: () => import('./status.ts'),
  auctions: () => import('./auctions.ts'),
  commands: () => import('./commands.ts'),
  'stuck-database': () => import('./stuck-database.ts'),
  'ingest-parts': () => import('./ingest-parts.ts'),
  stream: () => import('./stream.ts'),
  'stream-fanout': () => import('./stream-fanout.ts'),
  push: () => import('./push.ts'),
  'push-fairness': () => import('./push-fairness.ts'),
  drift: () => import('./drift.ts'),
};

const name = process.argv[2];
const load = name ? benches[name] : undefined;
if (!load) {
  console.error(`usage: npm run bench -- <${Object.keys(benches).join('|')}>`);
  process.exit(2);
}
await (await load()).default();
