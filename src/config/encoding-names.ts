// The encodings a model may name (`models[].encoding`): the config validates against them, the
// tokenizers (tokens/encodings.ts) load them.
export type EncodingName = 'o200k_base' | 'cl100k_base' | 'estimate';

export const ENCODING_NAMES: readonly EncodingName[] = ['o200k_base', 'cl100k_base', 'estimate'];
