/**
 * Property: whatever valid edits a user makes to a stub and however the
 * proto changes, regeneration leaves a stub that compiles under --strict,
 * `--check` right after is clean, and every hand-written body is unchanged.
 * Seeded: FW_STUB_PROPERTY_SEED=<n> replays a run, FW_STUB_PROPERTY_STEPS=<n>
 * walks further (default 10 steps, about a minute).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOnce, type CliOptions } from '../../cli/run-once';
import { RandomService, prng } from './support/random-proto';
import { makeTemp, removeTemp } from './support/run-cli';
import { editStub, pinnedMessages, readStub } from './support/stub-edits';
import { typecheck } from './support/typecheck';

const STEPS = Number(process.env['FW_STUB_PROPERTY_STEPS'] ?? '10');
const SEED = Number(process.env['FW_STUB_PROPERTY_SEED'] ?? String(Date.now() % 1_000_000));

jest.setTimeout(60_000 + STEPS * 30_000);

const OPTIONS: CliOptions = { out: 'generated', stubs: 'src', protoPath: [], check: false, watch: false, quiet: true };

async function fwGen(dir: string, check: boolean): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runOnce(['proto'], { ...OPTIONS, check }, dir, (l) => void (out += `${l}\n`), (l) => void (err += `${l}\n`));
  return { code, out, err };
}

/** `localName` of an RPC name, as fw-gen derives it. */
const handlerName = (rpc: string): string => rpc[0]?.toLowerCase() + rpc.slice(1);

describe('stub merge property', () => {
  let dir = '';
  afterAll(() => {
    if (dir !== '') removeTemp(dir);
  });

  it(`keeps stubs compiling, --check clean and bodies intact over ${STEPS} random steps`, async () => {
    const rand = prng(SEED);
    const service = new RandomService(rand);
    dir = makeTemp('merge-property');
    fs.mkdirSync(path.join(dir, 'proto'));
    const proto = path.join(dir, 'proto', 'prop.proto');
    const stub = path.join(dir, 'src', 'prop.service.ts');
    const history: string[] = [];
    const fail = (what: string): never => {
      throw new Error(`${what}\nseed ${SEED} (replay: FW_STUB_PROPERTY_SEED=${SEED} FW_STUB_PROPERTY_STEPS=${STEPS})\nsteps:\n${history.join('\n')}\nstub:\n${fs.readFileSync(stub, 'utf8')}`);
    };
    fs.writeFileSync(proto, service.source());
    if ((await fwGen(dir, false)).code !== 0) fail('first generation failed');
    for (let step = 1; step <= STEPS; step += 1) {
      const edited = editStub(fs.readFileSync(stub, 'utf8'), rand, service.messages, '../generated/prop');
      fs.writeFileSync(stub, edited.text);
      const bodies = readStub(edited.text).methods;
      const live = new Set(service.rpcs.map((r) => handlerName(r.name)));
      const changes = service.change(pinnedMessages(edited.text, live));
      history.push(`${step}. stub: ${edited.done.join(', ')}; proto: ${changes.join(', ') || 'unchanged'}`);
      fs.writeFileSync(proto, service.source());

      const gen = await fwGen(dir, false);
      if (gen.code !== 0) fail(`fw-gen exited ${gen.code}: ${gen.err}`);
      const check = await fwGen(dir, true);
      if (check.code !== 0) fail(`--check after fw-gen exited ${check.code}:\n${check.err}\n${check.out}`);
      const merged = fs.readFileSync(stub, 'utf8');
      const after = readStub(merged).methods;
      for (const [name, m] of bodies) {
        if (after.get(name)?.body !== m.body) fail(`the body of ${name} changed:\n--- before\n${m.body}\n--- after\n${after.get(name)?.body ?? '(method gone)'}`);
      }
      const problems = typecheck([stub]);
      if (problems.length > 0) fail(`tsc --strict: ${problems.map((p) => `${p.file}:${p.line} TS${p.code} ${p.message}`).join('\n')}`);
    }
    expect(history).toHaveLength(STEPS);
  });
});
