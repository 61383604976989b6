import { expect } from 'vitest';

/** Asserts OpenAI's error shape, exactly its four fields, with recap's stable code. */
export function expectOpenAIError(body: string, code: string, param: string | null = null): void {
  const parsed = JSON.parse(body) as { error: Record<string, unknown> };
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(Object.keys(parsed.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(parsed.error).toMatchObject({ code, param });
  expect(typeof parsed.error.message).toBe('string');
  expect(['invalid_request_error', 'api_error', 'authentication_error', 'not_found_error']).toContain(parsed.error.type);
}
