//! Token usage: from the counts model providers report to AG-UI's [`TokenUsage`].
//!
//! AG-UI's accounting (spec §4 `TokenUsage`): `inputTokens` and `outputTokens` are totals;
//! `reasoningTokens` is a part of `outputTokens`; `cachedInputTokens` and
//! `cacheWriteInputTokens` are disjoint parts of `inputTokens`; `totalTokens` is input +
//! output. Providers differ: some count reasoning and cache reads inside their prompt and
//! completion counts (OpenAI), some report them *beside* a smaller count (Anthropic's cache
//! reads and writes, Gemini's thoughts). [`ProviderUsage::to_token_usage`] adds parts in
//! when they were reported beside.
//!
//! ```
//! use ag_ui_builders::{Accounting, ProviderUsage};
//!
//! // OpenAI style: reasoning inside the completion count, cache reads inside the prompt.
//! let openai = ProviderUsage::new(1200, 340)
//!     .with_reasoning_tokens(200)
//!     .with_cached_tokens(800)
//!     .with_total_tokens(1540)
//!     .to_token_usage();
//! assert_eq!((openai.input_tokens, openai.output_tokens), (Some(1200), Some(340)));
//!
//! // Anthropic style: cache reads and writes beside `input_tokens`.
//! let anthropic = ProviderUsage::new(50, 120)
//!     .with_cached_tokens(1000)
//!     .with_cache_write_tokens(200)
//!     .with_cache_accounting(Accounting::Beside)
//!     .to_token_usage();
//! assert_eq!(anthropic.input_tokens, Some(1250));
//! assert_eq!(anthropic.total_tokens, Some(1370));
//! ```

use ag_ui_core::TokenUsage;

/// How a provider reports a part (reasoning, or cache reads and writes) relative to the
/// count it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Accounting {
    /// Decide from the numbers: a part larger than its count, or a reported total that
    /// exceeds prompt + completion by exactly the part, means *beside*; otherwise
    /// *included*.
    #[default]
    Infer,
    /// The part is already counted in its total (OpenAI `prompt_tokens_details`,
    /// `completion_tokens_details`).
    Included,
    /// The part is reported beside a smaller count and must be added in (Anthropic
    /// `cache_read_input_tokens` / `cache_creation_input_tokens`, Gemini
    /// `thoughtsTokenCount`).
    Beside,
}

/// Token counts as a model provider (or an agent framework's `TokenUsage`) reports them:
/// prompt, completion, optional total, reasoning, cache reads, cache writes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[must_use]
#[non_exhaustive]
pub struct ProviderUsage {
    /// Provider label (`openai`, `anthropic`, `google`, …).
    pub provider: Option<String>,
    /// Model label.
    pub model: Option<String>,
    /// Prompt (input) tokens.
    pub prompt_tokens: u64,
    /// Completion (output) tokens.
    pub completion_tokens: u64,
    /// The provider's own total, if it reports one (used to infer the accounting).
    pub total_tokens: Option<u64>,
    /// Reasoning tokens, if reported.
    pub reasoning_tokens: Option<u64>,
    /// Tokens read from the provider's cache, if reported.
    pub cached_tokens: Option<u64>,
    /// Tokens written to the provider's cache, if reported.
    pub cache_write_tokens: Option<u64>,
    /// How `reasoning_tokens` relates to `completion_tokens`.
    pub reasoning_accounting: Accounting,
    /// How `cached_tokens` and `cache_write_tokens` relate to `prompt_tokens`.
    pub cache_accounting: Accounting,
}

impl ProviderUsage {
    /// Counts with the two always-reported numbers.
    pub fn new(prompt_tokens: u64, completion_tokens: u64) -> Self {
        Self {
            prompt_tokens,
            completion_tokens,
            ..Self::default()
        }
    }
    /// Sets the provider label (`openai`, `anthropic`, …).
    pub fn with_provider(mut self, provider: impl Into<String>) -> Self {
        self.provider = Some(provider.into());
        self
    }
    /// Sets the model label.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }
    /// Sets the provider's own total.
    pub fn with_total_tokens(mut self, total: u64) -> Self {
        self.total_tokens = Some(total);
        self
    }
    /// Sets the reasoning tokens.
    pub fn with_reasoning_tokens(mut self, tokens: u64) -> Self {
        self.reasoning_tokens = Some(tokens);
        self
    }
    /// Sets the cache reads.
    pub fn with_cached_tokens(mut self, tokens: u64) -> Self {
        self.cached_tokens = Some(tokens);
        self
    }
    /// Sets the cache writes.
    pub fn with_cache_write_tokens(mut self, tokens: u64) -> Self {
        self.cache_write_tokens = Some(tokens);
        self
    }
    /// Says how reasoning is counted (default: inferred).
    pub fn with_reasoning_accounting(mut self, accounting: Accounting) -> Self {
        self.reasoning_accounting = accounting;
        self
    }
    /// Says how cache reads and writes are counted (default: inferred).
    pub fn with_cache_accounting(mut self, accounting: Accounting) -> Self {
        self.cache_accounting = accounting;
        self
    }

    /// The AG-UI usage: parts reported beside are added into input and output, `totalTokens`
    /// is input + output, and the parts are copied as reported (absent stays absent).
    #[must_use]
    pub fn to_token_usage(&self) -> TokenUsage {
        let reasoning = self.reasoning_tokens.unwrap_or(0);
        let cache = self
            .cached_tokens
            .unwrap_or(0)
            .saturating_add(self.cache_write_tokens.unwrap_or(0));
        let base = self.prompt_tokens.saturating_add(self.completion_tokens);
        // What the provider's total says beyond prompt + completion, when it says anything.
        let extra = self.total_tokens.map(|t| t.saturating_sub(base));
        let reasoning_beside = match self.reasoning_accounting {
            Accounting::Included => false,
            Accounting::Beside => true,
            Accounting::Infer => {
                reasoning > self.completion_tokens
                    || (reasoning > 0
                        && (extra == Some(reasoning)
                            || extra == Some(reasoning.saturating_add(cache))))
            }
        };
        let cache_beside = match self.cache_accounting {
            Accounting::Included => false,
            Accounting::Beside => true,
            Accounting::Infer => {
                cache > self.prompt_tokens
                    || (cache > 0
                        && (extra == Some(cache) || extra == Some(reasoning.saturating_add(cache))))
            }
        };
        let input = if cache_beside {
            self.prompt_tokens.saturating_add(cache)
        } else {
            self.prompt_tokens
        };
        let output = if reasoning_beside {
            self.completion_tokens.saturating_add(reasoning)
        } else {
            self.completion_tokens
        };
        let mut usage = TokenUsage::new()
            .with_input_tokens(input)
            .with_output_tokens(output)
            .with_total_tokens(input.saturating_add(output));
        usage.provider.clone_from(&self.provider);
        usage.model.clone_from(&self.model);
        usage.reasoning_tokens = self.reasoning_tokens;
        usage.cached_input_tokens = self.cached_tokens;
        usage.cache_write_input_tokens = self.cache_write_tokens;
        usage
    }
}

impl From<ProviderUsage> for TokenUsage {
    fn from(u: ProviderUsage) -> TokenUsage {
        u.to_token_usage()
    }
}

impl From<&ProviderUsage> for TokenUsage {
    fn from(u: &ProviderUsage) -> TokenUsage {
        u.to_token_usage()
    }
}

/// Adds up usage per (provider, model), in order of first appearance: the `usage` list of
/// `RUN_FINISHED` / `RUN_ERROR`.
#[derive(Debug, Clone, Default, PartialEq)]
#[must_use]
pub struct UsageMeter {
    entries: Vec<TokenUsage>,
}

impl UsageMeter {
    /// Nothing counted yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one model call.
    pub fn add(&mut self, usage: impl Into<TokenUsage>) {
        let usage = usage.into();
        match self
            .entries
            .iter_mut()
            .find(|e| e.provider == usage.provider && e.model == usage.model)
        {
            Some(entry) => entry.accumulate(&usage),
            None => self.entries.push(usage),
        }
    }

    /// Whether nothing was counted.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// One entry per (provider, model).
    #[must_use]
    pub fn entries(&self) -> &[TokenUsage] {
        &self.entries
    }

    /// The entries, consumed.
    #[must_use]
    pub fn into_entries(self) -> Vec<TokenUsage> {
        self.entries
    }
}
