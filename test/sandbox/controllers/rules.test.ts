// The hosted controllers' pure rules: what a control keeps of a good input, the site at a rate, the
// instance's own address.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  activeSince,
  DEFAULT_DRIFT_PLAN,
  IDLE_AFTER_MS,
  judgeDriftPlan,
  judgeRequestedEvent,
  ownAddress,
  siteActivity,
} from '../../../src/sandbox/controllers/rules.ts';

describe('a requested event', () => {
  it('keeps the fields a gateway takes, ids read as numbers, nothing else', () => {
    const judged = judgeRequestedEvent({
      eventType: 35,
      deviceId: 'alarm-board-1',
      unitId: '42',
      visitorId: 7,
      details: 'line one\nline two',
      data: { active: true },
    });
    assert.deepEqual(judged, {
      ok: true,
      value: {
        eventType: 35,
        deviceId: 'alarm-board-1',
        unitId: 42,
        visitorId: 7,
        details: 'line one\nline two',
        data: { active: true },
      },
    });
  });

  it('refuses what the gateway would: control characters in an id, data too deep or too large, a body that is no object', () => {
    const paths = (input: unknown) => {
      const judged = judgeRequestedEvent(input);
      return judged.ok ? [] : judged.faults.map((f) => f.path);
    };
    assert.deepEqual(paths({ eventType: 18, deviceId: 'kp\u0007' }), ['deviceId']);
    let deep: unknown = 'x';
    for (let i = 0; i < 20; i++) deep = { deep };
    assert.deepEqual(paths({ eventType: 18, data: deep }), ['data']);
    assert.deepEqual(paths({ eventType: 18, data: { text: 'x'.repeat(17 * 1024) } }), ['data']);
    assert.deepEqual(paths([]), ['']);
    assert.deepEqual(paths({}), ['eventType']);
  });
});

it('a drift plan: the default is one of each; a part given replaces its default', () => {
  assert.deepEqual(judgeDriftPlan({}), { ok: true, value: DEFAULT_DRIFT_PLAN });
  assert.deepEqual(judgeDriftPlan({ addVisitors: 0 }), {
    ok: true,
    value: { loseVisitors: 1, alterUnits: 1, addVisitors: 0 },
  });
});

it('the site at a rate: entries per minute from per hour, door alarms with them; quiet at 0; never drops, drifts or fails on its own', () => {
  const busy = siteActivity(600);
  assert.equal(busy.entriesPerMinute, 10);
  assert.equal(busy.doorAlarmsPerHour, 12);
  const quiet = siteActivity(0);
  assert.equal(quiet.entriesPerMinute, 0);
  assert.equal(quiet.doorAlarmsPerHour, 0);
  for (const site of [busy, quiet]) {
    assert.equal(site.deviceDropsPerHour, 0);
    assert.equal(site.driftsPerHour, 0);
    assert.equal(site.failShare, 0);
    assert.equal(site.pollWaitSeconds, 30);
  }
});

it('idle: used an hour ago or earlier', () => {
  assert.equal(activeSince(10 * IDLE_AFTER_MS).getTime(), 9 * IDLE_AFTER_MS);
});

it('its own address: loopback when it listens everywhere, else the one address it listens on', () => {
  assert.equal(ownAddress('0.0.0.0', 8080), 'http://127.0.0.1:8080');
  assert.equal(ownAddress('::', 8080), 'http://127.0.0.1:8080');
  assert.equal(ownAddress('localhost', 1), 'http://127.0.0.1:1');
  assert.equal(ownAddress('10.1.2.3', 8080), 'http://10.1.2.3:8080');
  assert.equal(ownAddress('fd00::5', 8080), 'http://[fd00::5]:8080');
});
