//! `TokenUsage`: token counts for one (provider, model) pair.

use crate::codec::wire::wire_struct;

wire_struct! {
    /// `TokenUsage`: token counts for one (provider, model) pair, used as `usage` on
    /// `RUN_FINISHED` and `RUN_ERROR`. `inputTokens` and `outputTokens` are totals;
    /// `reasoningTokens` is part of `outputTokens`; `cachedInputTokens` and
    /// `cacheWriteInputTokens` are disjoint parts of `inputTokens`; `totalTokens` is input +
    /// output. An absent count means "not reported", which is not 0.
    pub struct TokenUsage {
        required {}
        optional {
            /// Provider label, e.g. `openai`.
            provider / with_provider: String = "provider" [Absent],
            /// Model label.
            model / with_model: String = "model" [Absent],
            /// All prompt tokens charged (cache reads, cache writes, audio… included).
            input_tokens / with_input_tokens: u64 = "inputTokens" [Absent],
            /// All generated tokens, reasoning included.
            output_tokens / with_output_tokens: u64 = "outputTokens" [Absent],
            /// Should equal inputTokens + outputTokens (not validated).
            total_tokens / with_total_tokens: u64 = "totalTokens" [Absent],
            /// Part of outputTokens, never added to it.
            reasoning_tokens / with_reasoning_tokens: u64 = "reasoningTokens" [Absent],
            /// Cache reads; part of inputTokens.
            cached_input_tokens / with_cached_input_tokens: u64 = "cachedInputTokens" [Absent],
            /// Cache writes; part of inputTokens (new in 1.0).
            cache_write_input_tokens / with_cache_write_input_tokens: u64 = "cacheWriteInputTokens" [Absent],
        }
    }
}

impl TokenUsage {
    /// Usage attributed to `provider` and `model`.
    #[must_use]
    pub fn for_model(provider: impl Into<String>, model: impl Into<String>) -> Self {
        Self::new().with_provider(provider).with_model(model)
    }

    /// Adds `other`'s counts into `self`, field by field; a count reported by either side is
    /// reported in the sum (absent + n = n).
    pub fn accumulate(&mut self, other: &TokenUsage) {
        fn add(a: &mut Option<u64>, b: Option<u64>) {
            if let Some(b) = b {
                *a = Some(a.unwrap_or(0).saturating_add(b));
            }
        }
        add(&mut self.input_tokens, other.input_tokens);
        add(&mut self.output_tokens, other.output_tokens);
        add(&mut self.total_tokens, other.total_tokens);
        add(&mut self.reasoning_tokens, other.reasoning_tokens);
        add(&mut self.cached_input_tokens, other.cached_input_tokens);
        add(
            &mut self.cache_write_input_tokens,
            other.cache_write_input_tokens,
        );
    }
}
