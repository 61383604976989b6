import { ConfigError, parseConfig } from './config.js';

// What the config tests read from a refused config: the problems its ConfigError lists.

/** The problems of the ConfigError that `load` throws; none when it loads. */
export function problemsOf(load: () => unknown): string[] {
  try {
    load();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

/** The problems parseConfig finds in a YAML text (file name `recap.yaml`). */
export function problems(text: string, env: Record<string, string> = {}): string[] {
  return problemsOf(() => parseConfig(text, 'recap.yaml', env));
}
