import { describe, expect, it } from 'vitest';
import { chatFixture } from './chat/fixture.case.js';
import { chatFormat } from './chat/format.js';
import { type FormatFixture, runFormatCases } from './format.case.js';
import type { AnyWireFormat } from './format.js';
import { WIRE_FORMATS } from './formats.js';
import { messagesFixture } from './messages/fixture.case.js';
import { messagesFormat } from './messages/format.js';
import { responsesFixture } from './responses/fixture.case.js';
import { responsesFormat } from './responses/format.js';

// Every registered format runs the one contract (format.case.ts); a format is registered in
// formats.ts and its fixture here, one line each.
const FIXTURES = new Map<AnyWireFormat, FormatFixture>([
  [chatFormat, chatFixture],
  [responsesFormat, responsesFixture],
  [messagesFormat, messagesFixture],
]);

describe('the registered wire formats', () => {
  it('each have a fixture, and their own route', () => {
    for (const format of WIRE_FORMATS) expect(FIXTURES.has(format), format.path).toBe(true);
    expect(new Set(WIRE_FORMATS.map((f) => f.path)).size).toBe(WIRE_FORMATS.length);
    expect(new Set(WIRE_FORMATS.map((f) => f.items.route)).size).toBe(WIRE_FORMATS.length);
  });
});

for (const format of WIRE_FORMATS) {
  describe(`wire format ${format.path}`, () => {
    const fixture = FIXTURES.get(format);
    if (fixture) runFormatCases(format, fixture);
  });
}
