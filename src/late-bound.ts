// The server builds its HTTP app while the database opens (server.ts): the app's routes are
// registered against stand-ins of the faces, bound to the faces once they exist. A stand-in is
// read when a request is served, never while the app is built: reading one before it is bound
// throws, naming what was read (so a route that reads its face at registration fails every start).
import type { Services } from './services.ts';

/** What exists before the database opens: real from the start, not stood in for. */
export type KnownEarly = Pick<Services, 'config' | 'logger' | 'metrics'>;

/** A stand-in for the object `bind` gives later: each property read (or call) reaches it. */
export function lateBound<T extends object>(name: string): { value: T; bind(real: T): void } {
  let real: T | undefined;
  const target = (): T => {
    if (real === undefined)
      throw new Error(`${name} was used before the service started: read it when a request is served`);
    return real;
  };
  // A method read through the stand-in keeps its object (`this` is the face, not the stand-in), bound
  // once: requests read faces on every call, and a bind per read would allocate on every one.
  const boundMethods = new WeakMap<object, unknown>();
  // A function as the proxy's target, so that a stand-in of a function (services.readiness) can be called.
  const value = new Proxy(function standIn() {} as unknown as T, {
    get(_, key) {
      const owner = target();
      const property: unknown = Reflect.get(owner, key, owner);
      if (typeof property !== 'function') return property;
      let method = boundMethods.get(property);
      if (method === undefined) {
        method = property.bind(owner);
        boundMethods.set(property, method);
      }
      return method;
    },
    apply(_, thisArg, args) {
      return Reflect.apply(target() as (...args: unknown[]) => unknown, thisArg, args);
    },
  });
  return {
    value,
    bind(bound) {
      real = bound;
    },
  };
}

/** Services whose faces are bound later; `config`, `logger` and `metrics` are the real ones at once. */
export function servicesBoundLater(known: KnownEarly): { services: Services; bind(real: Services): void } {
  const standIns = new Map<PropertyKey, ReturnType<typeof lateBound<object>>>();
  let bound: Services | undefined;
  const services = new Proxy({} as Services, {
    get(_, key) {
      if (key in known) return known[key as keyof KnownEarly];
      if (bound) return bound[key as keyof Services];
      let standIn = standIns.get(key);
      if (!standIn) {
        standIn = lateBound(`services.${String(key)}`);
        standIns.set(key, standIn);
      }
      return standIn.value;
    },
  });
  return {
    services,
    bind(real) {
      for (const name of ['config', 'logger', 'metrics'] as const)
        if (real[name] !== known[name]) throw new Error(`services.${name} is not the one the app was built with`);
      bound = real;
      for (const [key, standIn] of standIns) {
        const face = real[key as keyof Services];
        if (typeof face !== 'object' && typeof face !== 'function')
          throw new Error(`services.${String(key)} is not a part`);
        standIn.bind(face);
      }
    },
  };
}
