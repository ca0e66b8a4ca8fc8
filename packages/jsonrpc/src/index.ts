export type {
  JsonPath,
  JsonRoot,
  JsonScanner,
  JsonScannerOptions,
  ScanResult,
  ScanStatus,
} from "./json-scanner.js";
export { createJsonScanner, pathKey, scanJson } from "./json-scanner.js";
export type { KeyTable } from "./key-table.js";
export { createKeyTable } from "./key-table.js";
export type {
  IdKey,
  InvalidReason,
  JsonRpcBatch,
  JsonRpcError,
  JsonRpcId,
  JsonRpcInvalid,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from "./message.js";
export {
  batchRejection,
  classifyLine,
  classifyValue,
  errorResponse,
  exactId,
  exactIdOfText,
  idKey,
  JSON_RPC_ERRORS,
  lineWithId,
  loggedId,
  loggedIdJson,
  messageLine,
  notificationLine,
} from "./message.js";
export type {
  MessageReader,
  MessageReaderOptions,
  OversizeEnvelope,
  OversizePiece,
  ReadItem,
  ValidMessage,
} from "./message-reader.js";
export { createMessageReader } from "./message-reader.js";
export type { Outbox, OutboxOptions, Ticket } from "./outbox.js";
export { createOutbox } from "./outbox.js";
export type {
  ExpiryCause,
  PendingRequest,
  PendingRequests,
  PendingRequestsOptions,
} from "./pending-requests.js";
export { createPendingRequests } from "./pending-requests.js";
