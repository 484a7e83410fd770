/**
 * Servers pin one process.nextTick entry on listen, so that V8 keeps the maps
 * of its shape alive through an idle period (runtime/core/tick-object-pin.ts
 * says why). What a test can check is the pin itself: after listen, one live
 * nextTick entry is held, the same one however many servers start.
 */
import { setImmediate as afterTicks } from 'node:timers/promises';

type PinModule = typeof import('../../runtime/core/tick-object-pin');
type FwModule = typeof import('../../runtime/index');
type GrpcAppModule = typeof import('../../runtime/grpc/application');

/**
 * Fresh copies of the runtime, so each test sees the pin module before any
 * listen. The gRPC application is loaded here too: `server.grpc()` loads it
 * lazily, which outside this registry would bring another pin module.
 */
function freshRuntime(): { pin: PinModule; fw: FwModule; grpc: GrpcAppModule } {
  let loaded: { pin: PinModule; fw: FwModule; grpc: GrpcAppModule } | undefined;
  jest.isolateModules(() => {
    loaded = {
      pin: require('../../runtime/core/tick-object-pin') as PinModule,
      fw: require('../../runtime/index') as FwModule,
      grpc: require('../../runtime/grpc/application') as GrpcAppModule,
    };
  });
  return loaded!;
}

function symbolNames(value: object): string[] {
  return Object.getOwnPropertySymbols(value).map((s) => s.description ?? '').sort();
}

describe('nextTick entry pin', () => {
  it('holds nothing before a server listens', () => {
    const { pin } = freshRuntime();
    expect(pin.pinnedTickObject()).toBeNull();
  });

  it('holds a live nextTick entry after an HTTP app listens, the same one for a second app', async () => {
    const { pin, fw } = freshRuntime();
    const first = fw.server.http();
    const second = fw.server.http();
    try {
      await first.listen(0, '127.0.0.1');
      await afterTicks();
      const entry = pin.pinnedTickObject();
      expect(entry).not.toBeNull();
      // The shape Node gives every nextTick entry: two async-id symbols, then callback and args
      // (and a store symbol once AsyncLocalStorage is in use, as under jest).
      expect(Object.keys(entry!)).toEqual(['callback', 'args']);
      expect(symbolNames(entry!)).toEqual(expect.arrayContaining(['async_id_symbol', 'trigger_async_id_symbol']));
      await second.listen(0, '127.0.0.1');
      await afterTicks();
      expect(pin.pinnedTickObject()).toBe(entry);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('is taken by the protocol gateway and the gRPC server on listen too', async () => {
    for (const start of ['gateway', 'grpc'] as const) {
      const { pin, fw, grpc } = freshRuntime();
      if (start === 'gateway') {
        const gateway = fw.createProtocolGateway({ protocols: ['http'], port: 0 });
        await gateway.listen(0, '127.0.0.1');
        await afterTicks();
        expect(pin.pinnedTickObject()).not.toBeNull();
        await gateway.close();
      } else {
        const app = grpc.createGrpcApplication();
        await app.listen(0, '127.0.0.1');
        await afterTicks();
        expect(pin.pinnedTickObject()).not.toBeNull();
        await app.close();
      }
    }
  });
});
