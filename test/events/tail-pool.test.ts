// The live tails read through a pool of their own on a PostgreSQL server (Database.tailPool, issue
// 25): with every connection of the requests' pool held — a fleet's batches queued behind them — a
// stream still reads its account's new events at once, and a webhook lane still delivers them. On
// the embedded database the tails share the one session's pool.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { TAIL_POOL_SIZE } from '../../src/db/database.ts';
import { databaseLabel, onPostgres } from '../helpers/harness.ts';
import { inject } from '../helpers/http.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import { until } from '../helpers/until.ts';
import {
  provisionReportingAccount,
  type ReportingAccount,
  type StreamingApp,
  startStreamingApp,
} from '../helpers/events.ts';
import { event, ingestWithoutSignal } from './helpers.ts';

let t: StreamingApp;
let acme: ReportingAccount;

let receiver: Receiver;

before(async () => {
  t = await startStreamingApp({ runJobs: true, env: { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' } });
  receiver = await startReceiver();
  acme = await provisionReportingAccount(t, { facilities: 1 });
  t.services.events.streams.settings.pollMs = 3_600_000; // every read is a wake-up's
});
after(async () => {
  await t.close();
  await receiver.close();
});

describe(`the tails' pool (${databaseLabel})`, () => {
  if (onPostgres) {
    it("a stream reads its new events while every connection of the requests' pool is held", async () => {
      const { database } = t.services;
      assert.notEqual(database.tailPool, database.pool);
      assert.equal(database.tailPool.options.max, TAIL_POOL_SIZE);
      const stream = await t.openStream(`${t.base}/gatewayevents/accounts/${acme.accountId}/stream`, acme.token);
      assert.equal(stream.status, 200, stream.body);
      await stream.waitFor(() => stream.comments().includes('stream open'), 5000, 'the stream open');
      const facilityId = acme.facilities[0]!.id;
      // Stored without the wake-up, before the requests' pool is taken.
      await ingestWithoutSignal(t, { accountId: acme.accountId, facilityId }, [
        event({ details: 'behind a full pool' }),
      ]);
      const held: pg.PoolClient[] = [];
      try {
        while (held.length < (database.pool.options.max ?? 10)) held.push(await database.pool.connect());
        assert.equal(database.pool.idleCount, 0);
        t.services.events.signals.stored(acme.accountId, facilityId);
        // A read through the requests' pool would wait for a connection (5 s, then fail the stream).
        await stream.waitFor(
          () => stream.events().some((e) => e.event.details === 'behind a full pool'),
          3000,
          'the event, read through the tails pool',
        );
      } finally {
        for (const client of held) client.release();
        stream.close();
      }
    });

    it("a webhook lane delivers new events while every connection of the requests' pool is held", async () => {
      const { database } = t.services;
      const subscribed = await inject(t.app, 'POST', '/webhooks/subscriptions', {
        token: acme.token,
        body: { url: receiver.url, topics: ['gateway.events'] },
      });
      assert.equal(subscribed.status, 201, JSON.stringify(subscribed.body));
      const facilityId = acme.facilities[0]!.id;
      const reached = (details: string) => () =>
        receiver.received.some((r) => r.json.data?.events?.some((e: { details: string }) => e.details === details));
      // A lane at work: its first event delivered the usual way.
      await acme.ingest(0, [event({ details: 'first' })]);
      await until(reached('first'), 10_000, 25);
      // Stored without the wake-up (no lane kicked yet), before the requests' pool is taken.
      await ingestWithoutSignal(t, { accountId: acme.accountId, facilityId }, [event({ details: 'to the receiver' })]);
      const held: pg.PoolClient[] = [];
      try {
        while (held.length < (database.pool.options.max ?? 10)) held.push(await database.pool.connect());
        t.services.events.signals.stored(acme.accountId, facilityId);
        // Through the requests' pool the lane would wait for a connection (5 s, then fail its turn).
        assert.ok(
          await until(reached('to the receiver'), 3000),
          'the event reached the receiver through the tails pool',
        );
      } finally {
        for (const client of held) client.release();
      }
    });
  } else {
    it("reads through the one session's pool", () => {
      assert.equal(t.services.database.tailPool, t.services.database.pool);
      assert.equal(t.services.database.tailDb, t.services.database.db);
    });
  }
});
