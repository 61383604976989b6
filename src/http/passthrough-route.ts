// The name a pass-through request is counted under (the overview's per-route rows): the OpenAI API
// family its path names, from a fixed list, so that a client's paths cannot make new names.

const FAMILIES = new Set([
  'models',
  'embeddings',
  'completions',
  'moderations',
  'images',
  'audio',
  'files',
  'uploads',
  'batches',
  'fine_tuning',
  'vector_stores',
  'assistants',
  'threads',
  'realtime',
  'messages',
  'chat',
  'responses',
  'conversations',
]);

/** `/v1/embeddings` → `embeddings`; `/v1/chat/completions/abc` → `chat`; anything else → `other`. */
export function passthroughRouteName(url: string): string {
  const segment = url.split('?')[0]!.split('/')[2] ?? '';
  return FAMILIES.has(segment) ? segment : 'other';
}
