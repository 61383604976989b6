import { stringifyJson } from '../body/stringify.js';

// The HTTP calls `recap eval` makes, as any client would: chat completions through recap or
// straight to the upstream, and the inspection endpoint. A non-2xx answer becomes an error that
// names the call and quotes the answer (never the credential sent).

export class AnswerError extends Error {
  constructor(
    readonly what: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`${what} answered ${status}: ${body.replace(/\s+/g, ' ').slice(0, 300)}`);
  }

  /** The upstream refused the prompt for its length (OpenAI's code, and the wording of compatible servers). */
  get contextTooLong(): boolean {
    return this.status === 400 && /context_length_exceeded|maximum context length|context window|too many tokens/i.test(this.body);
  }
}

export interface Reply {
  json: any;
  headers: Headers;
}

/** `body` written without recursion: a conversation may nest tool-call arguments thousands of levels deep. */
export async function postJson(what: string, url: string, body: unknown, headers: Record<string, string>): Promise<Reply> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: stringifyJson(body) });
  return readReply(what, res);
}

export async function getJson(what: string, url: string, headers: Record<string, string>): Promise<Reply> {
  return readReply(what, await fetch(url, { headers }));
}

async function readReply(what: string, res: Response): Promise<Reply> {
  const text = await res.text();
  if (!res.ok) throw new AnswerError(what, res.status, text);
  try {
    return { json: JSON.parse(text), headers: res.headers };
  } catch {
    throw new AnswerError(what, res.status, `not JSON: ${text}`);
  }
}
