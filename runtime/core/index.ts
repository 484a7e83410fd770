export * from './status';
export * from './request-context';
export { compose, type Middleware } from './compose';
export {
  InvalidMetadataError,
  type CallMetadataControls,
  type IncomingMetadata,
  type MetadataRecord,
  type MetadataValue,
  type MetadataValueFor,
  type ResponseCompression,
} from './call-metadata';
export { MissingPeerError } from './optional-peer';
