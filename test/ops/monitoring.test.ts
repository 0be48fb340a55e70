// The monitoring an operator imports (deploy/monitoring/): every metric the Prometheus alert rules and
// the Grafana dashboard name is one /metrics serves, every route they filter on is a route of the
// service, and the signals they watch move when the service works — a command delivered, a webhook
// accepted and one failing, the ready checks.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { inject } from '../helpers/http.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { gatewayToken, operatorToken, type ProvisionedAccount, provisionAccount } from '../helpers/tenants.ts';
import { until } from '../helpers/until.ts';
import { event, postEvents } from '../events/helpers.ts';

const monitoring = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy/monitoring');
const alertsText = fs.readFileSync(path.join(monitoring, 'alerts.yml'), 'utf8');
const dashboardText = fs.readFileSync(path.join(monitoring, 'dashboard.json'), 'utf8');

interface Rule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: string };
  annotations: { summary: string; description: string };
}
const rules: Rule[] = (parse(alertsText) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);
const dashboard = JSON.parse(dashboardText) as { panels: { type: string; targets?: { expr: string }[] }[] };
const queries = [
  ...rules.map((r) => r.expr),
  ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((target) => target.expr)),
];

/** The service's metric names a query uses (a histogram's series named by its family). */
const metricsIn = (expr: string) =>
  [...expr.matchAll(/\bgatehouse_[a-z0-9_]+/g)].map(([name]) => name.replace(/_(bucket|sum|count)$/, ''));
/** The sample of `name` with exactly these labels, from Prometheus text. */
function sample(text: string, name: string, labels = ''): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? null : Number(line.split(' ').at(-1));
}

describe('the alert rules and the dashboard, read', () => {
  it('every rule has an expression, a duration, a severity and words for the one paged', () => {
    assert.ok(rules.length >= 10, `${rules.length} rules`);
    for (const rule of rules) {
      assert.match(rule.alert, /^Gatehouse[A-Z]\w+$/, rule.alert);
      assert.match(rule.for, /^\d+[smh]$/, rule.alert);
      assert.ok(['critical', 'warning', 'info'].includes(rule.labels.severity), rule.alert);
      assert.ok(rule.annotations.summary && rule.annotations.description, rule.alert);
    }
    assert.equal(new Set(rules.map((r) => r.alert)).size, rules.length, 'names are unique');
  });

  it('the dashboard has panels with queries on the datasource variable', () => {
    const graphs = dashboard.panels.filter((p) => p.type === 'timeseries');
    assert.ok(graphs.length >= 15, `${graphs.length} panels`);
    for (const graph of graphs) assert.ok(graph.targets && graph.targets.length > 0);
    assert.doesNotMatch(
      dashboardText,
      /"uid": "(?!\$\{datasource\}|gatehouse-overview)/,
      'no datasource of one Grafana',
    );
  });
});

describe('what they name, against the service', () => {
  let t: TestApp;
  let account: ProvisionedAccount;
  let operator: string;
  let gateway: string;
  let good: Receiver;
  let failing: Receiver;
  before(async () => {
    t = await startTestApp({
      runJobs: true,
      env: {
        OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
        WEBHOOK_RETRY_BASE_MS: '50',
        WEBHOOK_SWEEP_MS: '100',
        // gatehouse_redis_up is served where Redis is configured: the suite's, or one that is not there (0).
        REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:1',
      },
    });
    account = await provisionAccount(t);
    operator = await operatorToken(t);
    gateway = (await gatewayToken(t, account.facilities[0]!.id)).token;
    good = await startReceiver();
    failing = await startReceiver({ kind: 'status', status: 500 });
  });
  after(async () => {
    await good?.close();
    await failing?.close();
    await t?.close();
  });
  const scrape = async () => {
    const answer = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${operator}` },
    });
    assert.equal(answer.statusCode, 200);
    return answer.body;
  };

  it('every metric named is served, and every route named is a route', async () => {
    const text = await scrape();
    const served = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map(([, name]) => name));
    const named = new Set(queries.flatMap(metricsIn));
    assert.ok(named.size >= 15, [...named].join(', '));
    const missing = [...named].filter((name) => !served.has(name));
    assert.deepEqual(missing, [], `named but not served: ${missing.join(', ')}`);
    for (const [, route] of queries.join('\n').matchAll(/route="([^"]+)"/g))
      assert.ok(t.app.hasRoute({ method: 'POST', url: route! }), route);
    for (const check of ['database', 'migrations', 'jobs'])
      assert.equal(sample(text, 'gatehouse_ready', `check="${check}"`), 1, check);
    assert.equal(sample(text, 'gatehouse_redis_up'), process.env.REDIS_URL ? 1 : 0);
  });

  it('a command delivered, a webhook accepted and a receiver failing move their signals', async () => {
    const before = await scrape();
    const facility = account.facilities[0]!.id;
    for (const url of [good.url, failing.url]) {
      const created = await inject(t.app, 'POST', '/webhooks/subscriptions', {
        token: account.token,
        body: { url, topics: ['gateway.events'] },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    const unit = await inject(t.app, 'POST', `/facilities/${facility}/units`, {
      token: account.token,
      body: { unitNumber: 'M-1' },
    });
    assert.equal(unit.status, 201, JSON.stringify(unit.body));
    const polled = await inject(t.app, 'GET', '/gateway/v1/commands', { token: gateway });
    assert.equal(polled.status, 200);
    assert.equal((await postEvents(t, gateway, [event()])).status, 200);
    await until(() => good.received.length > 0 && failing.attempts > 1, 20_000);

    const text = await until(async () => {
      const now = await scrape();
      return (sample(now, 'gatehouse_webhook_subscriptions_failing') ?? 0) >= 1 ? now : null;
    }, 10_000);
    const delivered = (name: string, from: string) => sample(from, `${name}_count`) ?? 0;
    assert.equal(
      delivered('gatehouse_command_delivery_seconds', text) - delivered('gatehouse_command_delivery_seconds', before),
      1,
    );
    assert.ok(
      delivered('gatehouse_webhook_delivery_seconds', text) > delivered('gatehouse_webhook_delivery_seconds', before),
    );
    assert.equal(sample(text, 'gatehouse_webhook_subscriptions_failing'), 1);
  });
});
