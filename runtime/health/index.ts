/** `/health` and `/ready` route handlers (spec 4.11). */
export {
  healthBody,
  healthCheck,
  readinessCheck,
  runReadinessCheck,
  type HealthBody,
  type HealthOptions,
  type ReadinessCheck,
  type ReadinessOptions,
} from './health-routes';
