/** Serving one port from many processes (`workers`), and fw's own handling of shutdown signals. */
export { checkProductionOptions, drainDelay, envHost, envPort, workerCount, type ProductionOptions, type WorkersOption } from './production-options';
export { datagramSharing, hasReusePort, isFwWorker, streamSharing } from './port-sharing';
export { handleTerminationSignals, registerStoppable, stopProcess, unregisterStoppable, type Stoppable } from './process-shutdown';
export { workerLink, type MetricsSource, type WorkerLink } from './worker-link';
export { mergeSnapshots } from './merge-snapshots';
export { workerSupervisor, type WorkerSupervisor, type WorkersAddress } from './supervisor';
export { listenInProduction, type AssignedPorts, type ProductionListen, type ProductionListening } from './production-listen';
