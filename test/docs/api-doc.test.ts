// docs/API.md kept true to the code: its scope table is the service's scopes, its limits are the
// values the code enforces, every route it names exists in the OpenAPI description, and every
// link of the repository's Markdown resolves inside the repository.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { COMMAND_LIFETIME_DAYS, COMMAND_RETENTION_DAYS } from '../../src/commands/index.ts';
import { LIMITS as AUCTION_LIMITS } from '../../src/auctions/model.ts';
import { MAINTENANCE_REASON_MAX_LENGTH, MAINTENANCE_WINDOW_MAX_MS } from '../../src/facility-status/index.ts';
import { loadConfig } from '../../src/config.ts';
import { FIELD_LIMITS, MAX_BATCH_EVENTS, MAX_INGEST_BODY_BYTES, MAX_PAGE_SIZE } from '../../src/events/limits.ts';
import { REMOTE_ACTION_REASON_MAX } from '../../src/facility-status/rules.ts';
import { MAX_WAIT_SECONDS } from '../../src/gateway/routes/commands.ts';
import { SCOPE_DESCRIPTIONS } from '../../src/http/access.ts';
import { MAX_HEADER_KIB } from '../../src/http/client-errors.ts';
import { LIMITS as PUSH_LIMITS } from '../../src/push/rules.ts';
import { anchors, links, markdownSection } from './markdown.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const apiDoc = read('docs/API.md');

/** The first column → second column of the Markdown table in a section. */
function table(section: string): Map<string, string> {
  const rows = markdownSection(apiDoc, section)
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
    .slice(1)
    .map((line) => line.split('|').map((cell) => cell.trim()));
  return new Map(rows.map((cells) => [cells[1]!, cells[2]!]));
}

const thousands = (n: number) => n.toLocaleString('en-US');
const mib = (bytes: number) => `${bytes / 1024 / 1024} MiB`;

describe('docs/API.md', () => {
  it('lists exactly the scopes the service has', () => {
    const documented = [...table('Authorization').keys()].filter((k) => k.startsWith('`')).map((k) => k.slice(1, -1));
    const scopesTable = documented.filter((k) => k in SCOPE_DESCRIPTIONS);
    assert.deepEqual(scopesTable.sort(), Object.keys(SCOPE_DESCRIPTIONS).sort());
  });

  it('states the limits the code enforces, with the configuration defaults', () => {
    const config = loadConfig({}, root);
    const limits = table('Limits');
    const expected: Record<string, string> = {
      'results per event page (`pageSize`)': `≤ ${thousands(MAX_PAGE_SIZE)}`,
      'events per gateway ingest batch': `≤ ${thousands(MAX_BATCH_EVENTS)} (body ≤ ${mib(MAX_INGEST_BODY_BYTES)})`,
      'event history': `${config.eventRetentionDays} days (\`EVENT_RETENTION_DAYS\`)`,
      'command lifetime': `${COMMAND_LIFETIME_DAYS} days`,
      "a remote action's `reason` (emergency, lockdown, action groups)": `≤ ${REMOTE_ACTION_REASON_MAX} characters`,
      "a failed command's reason (`data.reason` of its event 3)": `≤ ${FIELD_LIMITS.commandFailureReason} characters`,
      'commands and remote actions kept': `${COMMAND_RETENTION_DAYS} days`,
      'command long poll (`wait`)': `≤ ${MAX_WAIT_SECONDS} s`,
      'records per auction import call / facilities per call': `≤ ${thousands(AUCTION_LIMITS.recordsPerCall)} / 1`,
      'image URLs per auction record / bytes per image': `${AUCTION_LIMITS.imageUrlsPerRecord} / ${mib(AUCTION_LIMITS.imageBytes)}`,
      're-create wait after an auction is cancelled': `${config.auctionRecreateWaitMinutes} minutes (\`AUCTION_RECREATE_WAIT_MINUTES\`)`,
      'facility `guid`': `≤ ${AUCTION_LIMITS.guidLength} characters`,
      'maintenance window / its `reason`': `≤ ${MAINTENANCE_WINDOW_MAX_MS / 86_400_000} days / ≤ ${MAINTENANCE_REASON_MAX_LENGTH} characters`,
      'webhook subscriptions per account or partner': String(PUSH_LIMITS.subscriptionsPerOwner),
      "webhook receiver's time to answer": `${config.webhookTimeoutMs / 1000} s`,
      'request body (other routes)': `${mib(config.bodyLimitBytes)} (\`BODY_LIMIT_BYTES\`)`,
      'time to send a request body': `${config.bodyUploadTimeoutMs / 1000} s (\`BODY_UPLOAD_TIMEOUT_MS\`)`,
      'fields of a form body / keys of one JSON object': `≤ ${thousands(config.bodyFieldLimit)} (\`BODY_FIELD_LIMIT\`)`,
      'request headers, all together': `≤ ${MAX_HEADER_KIB} KiB`,
      'requests per minute per caller': `${thousands(config.rateLimitPerMinute)} (\`RATE_LIMIT_PER_MINUTE\`)`,
      '`ACCESS_CODE_IN_USE` answers per account key per minute': `${config.accessCodeConflictsPerMinute} (\`ACCESS_CODE_CONFLICTS_PER_MINUTE\`)`,
      'access token lifetime / refresh token': `${config.tokenTtlSeconds / 3600} hour / ${config.refreshTokenTtlSeconds / 86400} days (\`TOKEN_TTL_SECONDS\`, \`REFRESH_TOKEN_TTL_SECONDS\`)`,
    };
    for (const [limit, value] of Object.entries(expected)) assert.equal(limits.get(limit), value, limit);
  });

  it('names only routes that the OpenAPI descriptions have', () => {
    const operations = new Set<string>();
    for (const version of ['v3.0', 'v2.0', 'v1.0']) {
      const document = JSON.parse(read(`openapi/${version}.json`)) as { paths: Record<string, object> };
      for (const [route, item] of Object.entries(document.paths))
        for (const method of Object.keys(item)) operations.add(`${method.toUpperCase()} ${route}`);
    }
    const routes = [...apiDoc.matchAll(/\b(GET|POST|PUT|PATCH|DELETE) (\/[^\s`…]*)`/g)].map((m) => `${m[1]} ${m[2]}`);
    assert.ok(routes.length >= 10, `the page names routes (${routes.length})`);
    // `GET /` redirects people to /swagger: a convenience, not an operation of the API.
    const missing = routes.filter((route) => route !== 'GET /' && !operations.has(route.replace(/\?.*$/, '')));
    assert.deepEqual(missing, [], 'routes named in docs/API.md that no description has');
  });
});

describe('the repository Markdown', () => {
  const files = [
    'README.md',
    ...fs
      .readdirSync(path.join(root, 'docs'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.md'))
      .map((f) => path.join('docs', f)),
  ];

  it('links only to files inside the repository that exist, and to headings they have', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      for (const target of links(read(file))) {
        checked++;
        if (/^[a-z]+:/.test(target)) continue; // a web address: checked below for the README
        const [relative, anchor] = target.split('#') as [string, string | undefined];
        const resolved = relative ? path.resolve(root, path.dirname(file), relative) : path.join(root, file);
        if (!resolved.startsWith(`${root}${path.sep}`) && resolved !== root)
          broken.push(`${file}: ${target} (outside)`);
        else if (!fs.existsSync(resolved)) broken.push(`${file}: ${target} (missing)`);
        else if (anchor && resolved.endsWith('.md') && !anchors(fs.readFileSync(resolved, 'utf8')).has(anchor))
          broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
    assert.ok(checked > 20, `the pages have links (${checked})`);
  });

  it('the README links nowhere outside the repository but the local service', () => {
    const outside = links(read('README.md')).filter((t) => /^[a-z]+:/.test(t) && !/^http:\/\/localhost[:/]/.test(t));
    assert.deepEqual(outside, []);
  });
});
