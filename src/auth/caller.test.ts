import { describe, expect, it } from 'vitest';
import { RecapError } from '../errors.js';
import { authenticate } from './caller.js';
import { createClientKeys } from './client-keys.js';

const WEB = 'ck-web-4f1a9d2c7e5b3a8f6d0c1e9b7a5d3f2c';
const keys = createClientKeys([{ name: 'web', key: WEB }]);

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RecapError);
    return { status: (err as RecapError).status, code: (err as RecapError).code };
  }
  throw new Error('not refused');
};

describe('authenticate with clients', () => {
  it('admits `Authorization: Bearer <key>` (any case of the scheme) and removes every credential header', () => {
    for (const authorization of [`Bearer ${WEB}`, `bearer ${WEB}`, `BEARER  ${WEB}`]) {
      const headers: Record<string, string> = { authorization, 'api-key': WEB, 'x-api-key': WEB, 'x-other': 'kept' };
      expect(authenticate(headers, { keys, anonymous: 'off' })).toMatchObject({ kind: 'client', client: { name: 'web' } });
      expect(headers).toEqual({ 'x-other': 'kept' });
    }
  });

  it('refuses a missing credential and a wrong one with 401, removing them too', () => {
    const missing = { 'x-api-key': WEB };
    expect(refusal(() => authenticate(missing, { keys, anonymous: 'off' }))).toEqual({ status: 401, code: 'missing_credential' });
    expect(missing).toEqual({});
    for (const authorization of [`Basic ${WEB}`, `Bearer ${WEB} extra`, 'Bearer', `Token ${WEB}`, 'Bearer ck-other']) {
      expect(refusal(() => authenticate({ authorization }, { keys, anonymous: 'off' }))).toEqual({ status: 401, code: 'invalid_api_key' });
    }
  });
});

describe('authenticate without clients', () => {
  it("makes the caller's own credential, in any of its header styles, the caller", () => {
    expect(authenticate({ authorization: 'Bearer sk-a' }, { anonymous: 'off' })).toEqual({ kind: 'credential', credential: 'Bearer sk-a' });
    expect(authenticate({ 'api-key': 'azure-key' }, { anonymous: 'off' })).toEqual({ kind: 'credential', credential: 'azure-key' });
    expect(authenticate({ 'x-api-key': 'x-key' }, { anonymous: 'off' })).toEqual({ kind: 'credential', credential: 'x-key' });
  });

  it('leaves the credential headers for the upstream to judge', () => {
    const headers = { authorization: 'Bearer sk-a' };
    authenticate(headers, { anonymous: 'off' });
    expect(headers).toEqual({ authorization: 'Bearer sk-a' });
  });

  it('makes a caller without any credential anonymous, shared or not as configured', () => {
    expect(authenticate({}, { anonymous: 'off' })).toEqual({ kind: 'anonymous', shared: false });
    expect(authenticate({ authorization: '' }, { anonymous: 'shared' })).toEqual({ kind: 'anonymous', shared: true });
  });
});
