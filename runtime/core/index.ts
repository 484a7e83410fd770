export * from './status';
export * from './request-context';
export * from './handler-types';
export { compose, type Middleware } from './compose';
