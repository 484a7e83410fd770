/**
 * A random walk over one proto service for the stub merge property test:
 * RPCs and messages added, removed and renamed, request/response types and
 * streaming kinds changed. A message is only removed or renamed when no kept
 * handler's signature (see `pinned`) names it: code that names a type that is
 * gone cannot compile, whatever a merge does.
 */

export { prng } from '../../support/prng';

/** Picks one element. */
export function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

type Kind = 'unary' | 'server' | 'client' | 'bidi';
const KINDS: readonly Kind[] = ['unary', 'server', 'client', 'bidi'];

interface Rpc {
  name: string;
  request: string;
  response: string;
  kind: Kind;
}

/** The proto being walked. */
export class RandomService {
  readonly messages: string[] = ['M0', 'M1'];
  readonly rpcs: Rpc[] = [{ name: 'Call0', request: 'M0', response: 'M1', kind: 'unary' }];
  #next = 2;
  #typesAtStart = new Map<string, string[]>();

  /** Pins what the RPC's handler names; false when a type it names is already gone in this walk. */
  #pin(pinned: Set<string>, rpc: Rpc): boolean {
    const named = [rpc.request, rpc.response, ...(this.#typesAtStart.get(rpc.name) ?? [])];
    if (named.some((m) => !this.messages.includes(m))) return false;
    for (const m of named) pinned.add(m);
    return true;
  }

  constructor(private readonly rand: () => number) {}

  /** The proto source. */
  source(): string {
    const messages = this.messages.map((m, i) => `message ${m} {\n  string name = 1;\n  int32 n${i % 3} = 2;\n}\n`).join('\n');
    const stream = (on: boolean): string => (on ? 'stream ' : '');
    const rpcs = this.rpcs
      .map((r) => `  rpc ${r.name}(${stream(r.kind === 'client' || r.kind === 'bidi')}${r.request}) returns (${stream(r.kind === 'server' || r.kind === 'bidi')}${r.response});`)
      .join('\n');
    return `syntax = "proto3";\npackage prop;\n\n${messages}\nservice Svc {\n${rpcs}\n}\n`;
  }

  /**
   * Applies one to three random changes; `pinned` are message names a kept
   * handler's signature still uses. Returns what was done, for the failure message.
   */
  change(pinnedBefore: ReadonlySet<string>): string[] {
    // An RPC removed or renamed in this walk leaves a handler naming its types.
    const pinned = new Set(pinnedBefore);
    // The stub's handlers name the types each RPC had when this walk started.
    this.#typesAtStart = new Map(this.rpcs.map((r) => [r.name, [r.request, r.response]]));
    const done: string[] = [];
    const count = 1 + Math.floor(this.rand() * 3);
    for (let i = 0; i < count; i += 1) {
      const what = this.#one(pinned);
      if (what !== undefined) done.push(what);
    }
    return done;
  }

  #fresh(prefix: string): string {
    const name = `${prefix}${this.#next}`;
    this.#next += 1;
    return name;
  }

  #used(): Set<string> {
    return new Set(this.rpcs.flatMap((r) => [r.request, r.response]));
  }

  #one(pinned: Set<string>): string | undefined {
    const r = this.rand;
    switch (Math.floor(r() * 8)) {
      case 0: {
        const rpc = { name: this.#fresh('Call'), request: pick(r, this.messages), response: pick(r, this.messages), kind: pick(r, KINDS) };
        this.rpcs.push(rpc);
        return `add rpc ${rpc.name}`;
      }
      case 1: {
        if (this.rpcs.length <= 1) return undefined;
        const gone = pick(r, this.rpcs);
        if (!this.#pin(pinned, gone)) return undefined;
        this.rpcs.splice(this.rpcs.indexOf(gone), 1);
        return `remove rpc ${gone.name}`;
      }
      case 2: {
        const rpc = pick(r, this.rpcs);
        const old = rpc.name;
        if (!this.#pin(pinned, rpc)) return undefined;
        rpc.name = this.#fresh('Call');
        return `rename rpc ${old} to ${rpc.name}`;
      }
      case 3: {
        const rpc = pick(r, this.rpcs);
        rpc.kind = pick(r, KINDS.filter((k) => k !== rpc.kind));
        return `rpc ${rpc.name} becomes ${rpc.kind}`;
      }
      case 4: {
        const rpc = pick(r, this.rpcs);
        if (r() < 0.5) rpc.request = pick(r, this.messages);
        else rpc.response = pick(r, this.messages);
        return `rpc ${rpc.name} takes ${rpc.request} returns ${rpc.response}`;
      }
      case 5: {
        const m = this.#fresh('M');
        this.messages.push(m);
        return `add message ${m}`;
      }
      case 6: {
        const used = this.#used();
        const free = this.messages.filter((m) => !used.has(m) && !pinned.has(m));
        if (free.length === 0) return undefined;
        const m = pick(r, free);
        this.messages.splice(this.messages.indexOf(m), 1);
        return `remove message ${m}`;
      }
      default: {
        const candidates = this.messages.filter((m) => !pinned.has(m));
        if (candidates.length === 0) return undefined;
        const old = pick(r, candidates);
        const m = this.#fresh('M');
        this.messages[this.messages.indexOf(old)] = m;
        for (const rpc of this.rpcs) {
          if (rpc.request === old) rpc.request = m;
          if (rpc.response === old) rpc.response = m;
        }
        return `rename message ${old} to ${m}`;
      }
    }
  }
}
