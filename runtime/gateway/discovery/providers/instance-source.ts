/**
 * What a discovery provider does: report the current instances of each
 * service it is asked about, and report again whenever they change.
 */
import type { InstanceAddress } from '../discovery-config';

export type InstancesListener = (service: string, instances: readonly InstanceAddress[]) => void;

/** Reports a provider problem that discovery survives (kept list, retried later). */
export type ProblemListener = (service: string, error: Error) => void;

export interface InstanceSource {
  /** Resolves once every service's first list has been reported (or failed). */
  start(services: readonly string[], onInstances: InstancesListener, onProblem: ProblemListener): Promise<void>;
  close(): Promise<void>;
}
