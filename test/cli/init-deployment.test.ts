/**
 * The scaffold's deployment files (`fw-gen init`): the multi-stage
 * Dockerfile (a production install, `npm ci --omit=dev`, run as a non-root
 * user, listening on every interface through HOST) and the Kubernetes
 * manifests, parsed with the `yaml` package and checked against what the
 * cluster needs: the kinds and API versions, the Deployment's gRPC and HTTP
 * probes on the container's port, selectors that match the pod labels, a
 * headless Service (DNS SRV) with a named port, and a PodDisruptionBudget.
 * No Kubernetes schema checker installs here (kubeconform is not in Debian;
 * kubectl validates only against a live API server), so this test is the
 * check. The production install itself runs in test/project/new-project.test.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { makeTemp, removeTemp, runCli } from './support/run-cli';

jest.setTimeout(120_000);

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function docs(file: string): Doc[] {
  const parsed = parseAllDocuments(fs.readFileSync(file, 'utf8'));
  for (const d of parsed) expect(d.errors).toEqual([]);
  return parsed.map((d) => d.toJS() as Doc);
}

describe('fw-gen init: Dockerfile and Kubernetes manifests', () => {
  let parent: string;
  let dir: string;

  beforeAll(() => {
    parent = makeTemp('init-deploy');
    dir = path.join(parent, 'my-shop');
    const result = runCli(['init', dir, '--fw', 'file:../fw']);
    expect(result.status).toBe(0);
  });
  afterAll(() => removeTemp(parent));

  it('ships a multi-stage Dockerfile: build, then a production install as a non-root user on 0.0.0.0', () => {
    const text = fs.readFileSync(path.join(dir, 'Dockerfile'), 'utf8');
    const instructions = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    const stages = instructions.filter((l) => l.startsWith('FROM '));
    expect(stages).toEqual(['FROM node:24-slim AS build', 'FROM node:24-slim']);
    const runtime = instructions.slice(instructions.indexOf('FROM node:24-slim'));
    expect(runtime).toContain('RUN npm ci --omit=dev && npm cache clean --force');
    expect(runtime).toContain('COPY --from=build /app/dist ./dist');
    expect(runtime).toContain('USER node');
    expect(runtime.find((l) => l.startsWith('ENV '))).toMatch(/HOST=0\.0\.0\.0 PORT=50051 FW_DRAIN_DELAY_MS=\d+/);
    expect(runtime.at(-1)).toBe('CMD ["node", "dist/src/main.js"]');
    // `--fw file:../fw` is not vendored: nothing to copy from vendor/.
    expect(text).not.toContain('vendor/');
    expect(fs.readFileSync(path.join(dir, '.dockerignore'), 'utf8').split('\n')).toEqual(expect.arrayContaining(['node_modules/', 'dist/']));
  });

  it('has a Deployment with an HTTP readiness probe and a gRPC liveness probe, run as non-root', () => {
    const [deployment] = docs(path.join(dir, 'k8s', 'deployment.yaml'));
    expect([deployment!.apiVersion, deployment!.kind]).toEqual(['apps/v1', 'Deployment']);
    const labels = deployment!.spec.template.metadata.labels;
    expect(deployment!.spec.selector.matchLabels).toEqual(labels);
    expect(deployment!.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    const [container] = deployment!.spec.template.spec.containers;
    const env = Object.fromEntries((container.env as { name: string; value: string }[]).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ HOST: '0.0.0.0', PORT: '50051' });
    const drainDelayS = Number(env.FW_DRAIN_DELAY_MS) / 1000;
    // The kubelet's SIGKILL comes after the grace period: it must cover the drain delay and fw's 10 s shutdown timeout.
    expect(deployment!.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(drainDelayS + 10);
    const ports = container.ports as { name: string; containerPort: number; protocol: string }[];
    expect(ports).toEqual([
      { name: 'grpc', containerPort: 50051, protocol: 'TCP' },
      { name: 'udp', containerPort: 50051, protocol: 'UDP' },
    ]);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'grpc' });
    expect(container.livenessProbe.grpc).toEqual({ port: 50051 });
    expect(container.startupProbe.httpGet.path).toBe('/health');
    for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
      expect(Object.keys(probe).filter((k) => ['httpGet', 'grpc', 'tcpSocket', 'exec'].includes(k))).toHaveLength(1);
    }
  });

  it('has a Service, a headless Service for DNS SRV, and a PodDisruptionBudget, all selecting the pods', () => {
    const [deployment] = docs(path.join(dir, 'k8s', 'deployment.yaml'));
    const labels = deployment!.spec.template.metadata.labels;
    const [service, headless] = docs(path.join(dir, 'k8s', 'service.yaml'));
    for (const s of [service!, headless!]) {
      expect([s.apiVersion, s.kind]).toEqual(['v1', 'Service']);
      expect(s.spec.selector).toEqual(labels);
      // SRV records are named after the port: _grpc._tcp.<service>.
      for (const port of s.spec.ports) expect(port).toEqual(expect.objectContaining({ name: expect.stringMatching(/^[a-z][a-z0-9-]*$/), port: 50051 }));
    }
    expect(service!.spec.ports.map((p: Doc) => p.protocol)).toEqual(['TCP', 'UDP']);
    expect(headless!.spec.clusterIP).toBe('None');
    expect(headless!.spec.ports[0]).toMatchObject({ name: 'grpc', protocol: 'TCP' });
    const [pdb] = docs(path.join(dir, 'k8s', 'pod-disruption-budget.yaml'));
    expect([pdb!.apiVersion, pdb!.kind]).toEqual(['policy/v1', 'PodDisruptionBudget']);
    expect(pdb!.spec.selector.matchLabels).toEqual(labels);
    expect(pdb!.spec.minAvailable).toBeLessThan(deployment!.spec.replicas);
    const names = [deployment!, service!, headless!, pdb!].map((d) => d.metadata.name as string);
    for (const name of names) expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });

  it('copies vendor/ in both stages when the tarballs travel with the project', () => {
    const tarball = path.join(parent, 'fw-0.1.0.tgz');
    fs.writeFileSync(tarball, 'not a real tarball: init only copies it');
    const vendoredDir = path.join(parent, 'vendored');
    fs.mkdirSync(vendoredDir);
    fs.writeFileSync(path.join(vendoredDir, 'package.json'), JSON.stringify({ name: 'vendored', dependencies: { fw: 'file:../fw-0.1.0.tgz' } }));
    const result = runCli(['init', vendoredDir], vendoredDir);
    expect(result.stderr).toBe('');
    const text = fs.readFileSync(path.join(vendoredDir, 'Dockerfile'), 'utf8');
    expect(text.match(/^COPY vendor\/ \.\/vendor\/$/gm)).toHaveLength(2);
  });
});
