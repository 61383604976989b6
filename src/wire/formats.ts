import { chatFormat } from './chat/format.js';
import type { AnyWireFormat } from './format.js';
import { messagesFormat } from './messages/format.js';
import { responsesFormat } from './responses/format.js';

// Every API recap compacts, one line each: app.ts mounts a compacting route per format, and the
// shared case suite (format.case.ts, run by formats.test.ts) runs over each. Adding an API is a folder beside
// chat/ and responses/ exporting one WireFormat, and one line here.
export const WIRE_FORMATS: readonly AnyWireFormat[] = [chatFormat, responsesFormat, messagesFormat];
