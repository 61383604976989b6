// The usage text of `recap eval`, apart from its code so that the CLI's table can show it without
// loading the eval.

/** Probes asked at most, unless --max-probes says otherwise. */
export const DEFAULT_MAX_PROBES = 24;

export const EVAL_USAGE = `usage: recap eval FILE [--config FILE] [--json] [--max-probes N]

Compacts FILE (one whole conversation as a chat request body: model, messages, tools; or as a
stateless Responses request body: model, instructions, input items, tools) through an in-process
recap with the config's models and upstreams (really calling the summarizer), then asks the model
probe questions about what was evicted (summarized, or tool results cleared), through recap's view
(without and with recap_recall offered) and with the full history, and prints the recall of each
and what the recalls cost. Costs one model call per probe and view, one more per recall, plus the
compaction.

  --config FILE     recap config (default: RECAP_CONFIG or config/recap.yaml)
  --json            print {"probes", "recall_compacted", "recall_with_recall", "recall_full", "recall_hops", "tokens_full", "tokens_compacted", …}
  --max-probes N    at most N probes (default ${DEFAULT_MAX_PROBES})

The eval authenticates with OPENAI_API_KEY (when set) wherever an upstream has no api_key.`;
