//! Provider token counts mapped onto AG-UI's TokenUsage accounting.

use ag_ui_builders::{Accounting, ProviderUsage, UsageMeter};
use ag_ui_core::TokenUsage;

fn counts(u: &TokenUsage) -> [Option<u64>; 6] {
    [
        u.input_tokens,
        u.output_tokens,
        u.total_tokens,
        u.reasoning_tokens,
        u.cached_input_tokens,
        u.cache_write_input_tokens,
    ]
}

#[test]
fn parts_inside_their_totals_are_kept() {
    // OpenAI: cached ⊂ prompt, reasoning ⊂ completion, total = prompt + completion.
    let u = ProviderUsage::new(1200, 340)
        .with_reasoning_tokens(200)
        .with_cached_tokens(800)
        .with_total_tokens(1540)
        .to_token_usage();
    assert_eq!(
        counts(&u),
        [
            Some(1200),
            Some(340),
            Some(1540),
            Some(200),
            Some(800),
            None
        ]
    );
    // No total reported and parts smaller than their counts: read as included.
    let u = ProviderUsage::new(100, 50)
        .with_reasoning_tokens(20)
        .with_cached_tokens(30)
        .to_token_usage();
    assert_eq!(
        counts(&u),
        [Some(100), Some(50), Some(150), Some(20), Some(30), None]
    );
}

#[test]
fn parts_beside_a_smaller_total_are_added_in() {
    // Gemini: thoughts beside candidates, the total counting them.
    let u = ProviderUsage::new(100, 50)
        .with_reasoning_tokens(70)
        .with_total_tokens(220)
        .to_token_usage();
    assert_eq!(
        counts(&u),
        [Some(100), Some(120), Some(220), Some(70), None, None]
    );
    // Reasoning larger than the completion count cannot be part of it.
    let u = ProviderUsage::new(10, 5)
        .with_reasoning_tokens(30)
        .to_token_usage();
    assert_eq!(
        counts(&u),
        [Some(10), Some(35), Some(45), Some(30), None, None]
    );
    // Anthropic: cache reads and writes beside input_tokens (no total reported).
    let u = ProviderUsage::new(50, 120)
        .with_cached_tokens(1000)
        .with_cache_write_tokens(200)
        .to_token_usage();
    assert_eq!(
        counts(&u),
        [
            Some(1250),
            Some(120),
            Some(1370),
            None,
            Some(1000),
            Some(200)
        ]
    );
    // Both beside, the provider's total counting both.
    let u = ProviderUsage::new(10, 10)
        .with_cached_tokens(5)
        .with_reasoning_tokens(3)
        .with_total_tokens(28)
        .to_token_usage();
    assert_eq!(
        counts(&u),
        [Some(15), Some(13), Some(28), Some(3), Some(5), None]
    );
}

#[test]
fn explicit_accounting_wins_over_inference() {
    let beside = ProviderUsage::new(50, 120)
        .with_cached_tokens(10)
        .with_cache_accounting(Accounting::Beside)
        .with_reasoning_tokens(5)
        .with_reasoning_accounting(Accounting::Beside)
        .to_token_usage();
    assert_eq!(
        counts(&beside),
        [Some(60), Some(125), Some(185), Some(5), Some(10), None]
    );
    let inside = ProviderUsage::new(10, 5)
        .with_reasoning_tokens(30)
        .with_reasoning_accounting(Accounting::Included)
        .to_token_usage();
    assert_eq!(inside.output_tokens, Some(5));
}

#[test]
fn the_result_always_follows_the_accounting_rule() {
    for p in [0_u64, 1, 7, 100] {
        for c in [0_u64, 1, 9, 100] {
            for r in [None, Some(0), Some(5), Some(150)] {
                for k in [None, Some(0), Some(3), Some(120)] {
                    let mut pu = ProviderUsage::new(p, c);
                    pu.reasoning_tokens = r;
                    pu.cached_tokens = k;
                    let u = pu.to_token_usage();
                    let (i, o) = (u.input_tokens.unwrap(), u.output_tokens.unwrap());
                    assert_eq!(u.total_tokens, Some(i + o));
                    assert!(r.unwrap_or(0) <= o, "{pu:?} -> {u:?}");
                    assert!(k.unwrap_or(0) <= i, "{pu:?} -> {u:?}");
                    assert!(i >= p && o >= c);
                }
            }
        }
    }
}

#[test]
fn the_meter_adds_up_per_provider_and_model() {
    let mut meter = UsageMeter::new();
    assert!(meter.is_empty());
    meter.add(
        ProviderUsage::new(10, 5)
            .with_provider("openai")
            .with_model("gpt-5"),
    );
    meter.add(
        ProviderUsage::new(1, 1)
            .with_provider("anthropic")
            .with_model("claude"),
    );
    meter.add(
        ProviderUsage::new(20, 5)
            .with_reasoning_tokens(2)
            .with_provider("openai")
            .with_model("gpt-5"),
    );
    let entries = meter.into_entries();
    assert_eq!(entries.len(), 2);
    assert_eq!(
        counts(&entries[0]),
        [Some(30), Some(10), Some(40), Some(2), None, None]
    );
    assert_eq!(entries[1].model.as_deref(), Some("claude"));
}
