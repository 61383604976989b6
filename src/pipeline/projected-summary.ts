// Audit mode (audit.ts) plans as enforcing would, but writes no summary: the one it would have
// written is this text, never forwarded, counted as the summary's limit (analyze.ts).
export const PROJECTED_SUMMARY = '\u0000recap: projected summary (audit mode)';
