// The server builds its HTTP app while the database opens, against stand-ins of the faces
// (src/late-bound.ts). A stand-in refuses to be read before it is bound, and once bound is the face
// itself: its methods keep their object, a function is called through it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { Metrics } from '../src/http/metrics.ts';
import { lateBound, servicesBoundLater } from '../src/late-bound.ts';
import { createLogger } from '../src/logger.ts';
import type { Services } from '../src/services.ts';
import { LogCapture } from './helpers/harness.ts';

class Counter {
  #count = 0; // a private field: reached only with `this` the object itself, not a proxy of it
  readonly name = 'counter';
  add(n: number): number {
    this.#count += n;
    return this.#count;
  }
}

describe('a late-bound stand-in', () => {
  it('refuses every read and call before it is bound, naming what was used', () => {
    const counter = lateBound<Counter>('services.counter');
    assert.throws(() => counter.value.add, /services\.counter was used before the service started/);
    assert.throws(() => counter.value.name, /services\.counter was used before the service started/);
    const check = lateBound<() => boolean>('services.readiness');
    assert.throws(() => check.value(), /services\.readiness was used before the service started/);
  });

  it('is the object once bound: properties, methods with their own `this`, calls', () => {
    const counter = lateBound<Counter>('services.counter');
    const held = counter.value; // what a route keeps at registration
    const real = new Counter();
    counter.bind(real);
    assert.equal(held.name, 'counter');
    assert.equal(held.add(2), 2);
    const add = held.add; // a method taken off the stand-in keeps the face as `this`
    assert.equal(add(3), 5);
    assert.equal(real.add(0), 5, 'the calls reached the real object');
    assert.equal(held.add, held.add, 'a method is bound once, not on every read');
    const check = lateBound<(n: number) => number>('services.double');
    check.bind((n) => n * 2);
    assert.equal(check.value(21), 42);
  });
});

describe('services bound later', () => {
  const config = loadConfig({ LOG_LEVEL: 'warn' });
  const known = { config, logger: createLogger(config, new LogCapture()), metrics: new Metrics() };

  it('give config, logger and metrics at once, and every face as a stand-in until bound', () => {
    const late = servicesBoundLater(known);
    assert.equal(late.services.config, known.config);
    assert.equal(late.services.metrics, known.metrics);
    const events = late.services.events;
    assert.throws(() => events.store, /services\.events was used before the service started/);
    const store = { name: 'the store' };
    late.bind({ ...known, events: { store } } as unknown as Services);
    assert.equal(events.store, store, 'the stand-in given out before binding reaches the face');
    assert.equal(late.services.events.store, store);
  });

  it('refuse services whose metrics are not the ones the app was built with', () => {
    const late = servicesBoundLater(known);
    assert.throws(
      () => late.bind({ ...known, metrics: new Metrics() } as unknown as Services),
      /services\.metrics is not the one the app was built with/,
    );
  });

  it('build the whole HTTP app: no route reads its face while it is registered', async () => {
    const late = servicesBoundLater(known);
    // Fails, naming the face, if a route reads one at registration (the server would fail to start).
    const app = await buildApp(late.services);
    await app.ready();
    assert.ok(app.hasRoute({ method: 'GET', url: '/availability' }));
    assert.ok(app.hasRoute({ method: 'POST', url: '/auth/token' }));
    // Closing answers the waiting polls and ends the streams: through the faces, bound by now.
    const closed: string[] = [];
    const face = (name: string) => ({
      beginClosing: async () => {
        closed.push(name);
      },
      streams: {
        beginClosing: async () => {
          closed.push(`${name}.streams`);
        },
      },
    });
    late.bind(
      new Proxy(known, {
        get: (real, key: string) => (key in real ? real[key as keyof typeof real] : face(key)),
      }) as Services,
    );
    await app.close();
    assert.deepEqual(closed.sort(), ['commands', 'events.streams']);
  });
});
