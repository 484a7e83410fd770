/**
 * The abort fan-out (runtime/gateway/discovery/abort-fanout.ts): forwarded
 * calls watching one shared signal get one 'abort' listener between them,
 * a call that stopped watching is not run, each watcher runs once.
 */
import { unwatchAbort, watchAbort } from '../../../runtime/gateway/discovery/abort-fanout';

describe('abort fan-out', () => {
  it('runs every watcher still watching once, on one listener per signal', () => {
    const controller = new AbortController();
    const added = jest.spyOn(controller.signal, 'addEventListener');
    const ran: string[] = [];
    const a = (): void => void ran.push('a');
    const b = (): void => void ran.push('b');
    watchAbort(controller.signal, a);
    watchAbort(controller.signal, b);
    const c = (): void => void ran.push('c');
    watchAbort(controller.signal, c);
    unwatchAbort(controller.signal, a);
    unwatchAbort(controller.signal, b);
    controller.abort();
    controller.abort();
    expect(ran).toEqual(['c']);
    expect(added).toHaveBeenCalledTimes(1);
  });

  it('a signal whose only watcher left and another came keeps one listener and runs the new one', () => {
    const controller = new AbortController();
    const added = jest.spyOn(controller.signal, 'addEventListener');
    const ran: string[] = [];
    const first = (): void => void ran.push('first');
    const second = (): void => void ran.push('second');
    watchAbort(controller.signal, first);
    unwatchAbort(controller.signal, first);
    watchAbort(controller.signal, second);
    controller.abort();
    expect(ran).toEqual(['second']);
    expect(added).toHaveBeenCalledTimes(1);
  });

  it('signals do not share watchers', () => {
    const one = new AbortController();
    const two = new AbortController();
    const ran: string[] = [];
    watchAbort(one.signal, () => ran.push('one'));
    watchAbort(two.signal, () => ran.push('two'));
    two.abort();
    expect(ran).toEqual(['two']);
    one.abort();
    expect(ran).toEqual(['two', 'one']);
  });
});
