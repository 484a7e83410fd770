/**
 * `fw/browser`: the runtime of generated browser clients (`x.browser.ts`).
 * ESM-friendly and free of Node built-ins: it uses only `WebSocket`,
 * `fetch`, `TextDecoderStream`, `AbortSignal` and timers, so it runs in
 * browsers, workers and Node 22+. docs/browser.md shows it in use.
 */
export { RpcError } from './rpc-error';
export { rpc, type CallKind, type JsonMessage, type Method, type PartialMessage } from './method';
export type { CallOptions, TokenProvider, Transport } from './transport';
export { createWebSocketTransport, type WebSocketTransport, type WebSocketTransportOptions } from './websocket-transport';
export { createFetchTransport, type FetchTransportOptions } from './fetch-transport';
export { callBidiStream, callClientStream, callServerStream, callUnary, createClient, type ClientOf } from './calls';
export { createRequestQueue, type RequestQueue } from './request-queue';
export { bytesFromJson, bytesToJson, durationFromJson, durationToJson, fieldMaskFromJson, fieldMaskToJson, type DurationValue } from './well-known-json';
export { anyFromJson, anyToJson, registerMessageTypes, type AnyValue, type PackableMessage } from './any-json';
