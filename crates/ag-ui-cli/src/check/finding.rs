//! Findings, their rules and the report.

use serde_json::{Value, json};

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Severity {
    /// Something a reader should know (a case that could not be run).
    Info,
    /// Allowed, but a client may stumble on it.
    Warning,
    /// Breaks the protocol.
    Error,
}

impl Severity {
    /// The name in reports.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A rule of the CLI's own (HTTP, framing, fields, error shapes, keep-alive, run identity,
/// the fold): id, severity, spec section, what is expected. The crate README lists them.
pub(crate) struct CliRule {
    /// The id (`H1`, …).
    pub(crate) id: &'static str,
    /// How serious breaking it is.
    pub(crate) severity: Severity,
    /// The spec section.
    pub(crate) section: &'static str,
    /// What is expected.
    pub(crate) expected: &'static str,
}

macro_rules! cli_rules {
    ($($name:ident = $id:literal, $sev:ident, $section:literal, $expected:literal;)*) => {
        $(
            #[doc = $expected]
            pub(crate) const $name: CliRule = CliRule {
                id: $id,
                severity: Severity::$sev,
                section: $section,
                expected: $expected,
            };
        )*
        /// Every rule of the CLI's own, in catalogue order.
        #[cfg(test)]
        pub(crate) const CLI_RULES: &[CliRule] = &[$($name),*];
    };
}

cli_rules! {
    H1 = "H1", Error, "§8.1", "a run request is answered with a 2xx status";
    H2 = "H2", Error, "§8.2", "a run response has the content type text/event-stream";
    H3 = "H3", Error, "§8.1", "a malformed run input is refused with a 4xx status";
    H4 = "H4", Warning, "§8.1", "an error response is a JSON object (application/json) saying what is wrong";
    N1 = "N1", Error, "§8.1", "the server answers every request of the suite";
    F1 = "F1", Error, "§8.3", "every SSE message's data is a JSON object with a non-empty string `type`";
    F2 = "F2", Warning, "§8.3", "SSE lines end with LF alone (CRLF or CR framing breaks the reference client)";
    F3 = "F3", Warning, "§8.3", "the stream ends after a complete message (a blank line)";
    E1 = "E1", Error, "§5", "every event is a valid event of the protocol version (known fields well-formed)";
    E2 = "E2", Warning, "§2.2–§2.3", "events carry no unknown fields, no `null` for absent optional fields, no legacy shapes";
    E3 = "E3", Warning, "§3.1", "every event type is one of the protocol version";
    R1 = "R1", Error, "§9.1", "the stream ends with its run's terminal event (RUN_FINISHED or RUN_ERROR)";
    R2 = "R2", Warning, "§9.1", "each run has one terminal event";
    R3 = "R3", Error, "§4 RunAgentInput", "RUN_STARTED carries the input's threadId and runId";
    P1 = "P1", Warning, "§10", "RUN_STARTED declares a protocolVersion the request's version can read";
    D1 = "D1", Error, "§9.4", "every event applies to the thread (messages and state) cleanly";
    K1 = "K1", Warning, "§8.3", "an open run sends an event or a keep-alive comment at least every few seconds";
    X1 = "X1", Info, "—", "every case of the suite can be run against the server";
}

/// What a verifier rule expects, in a sentence (the rules of spec §9.1 and §9.3).
pub(crate) fn verifier_expected(rule: ag_ui_core::Rule) -> &'static str {
    match rule.as_str() {
        "L1" => "the first event of a stream is RUN_STARTED (or RUN_ERROR)",
        "L2" => "no RUN_STARTED while a run is active",
        "L3" => "after RUN_ERROR only a new RUN_STARTED",
        "L4" => "after RUN_FINISHED only RUN_ERROR or a new RUN_STARTED",
        "L5" => {
            "no RUN_FINISHED while a step, message, reasoning span, tool call or subagent is open"
        }
        "L6" => "RUN_FINISHED carries the runId of its RUN_STARTED",
        "L7" => "every run of a stream carries the stream's threadId",
        "I1" => "the interrupts of one outcome have distinct ids",
        "M1" => "no TEXT_MESSAGE_START for a message id that is open",
        "M2" => "TEXT_MESSAGE_CONTENT and TEXT_MESSAGE_END follow the message's TEXT_MESSAGE_START",
        "T1" => {
            "TOOL_CALL_ARGS and TOOL_CALL_END follow the call's TOOL_CALL_START, which opens it once"
        }
        "T2" => "message and tool call ids are matched within their own kind",
        "T3" => "TOOL_CALL_RESULT's messageId is not a text message still streaming",
        "S1" => "no STEP_STARTED for a step of that name that is open",
        "S2" => "STEP_FINISHED follows its STEP_STARTED",
        "Z1" => "no reasoning opener for an id of its kind that is open",
        "Z2" => "reasoning content and ends follow their opener",
        "Z3" => "REASONING_ENCRYPTED_VALUE keeps its entity's owner",
        "A1" => "SUBAGENT_STARTED has a string id and name, a fresh id, a started parent",
        "A2" => "SUBAGENT_FINISHED and SUBAGENT_ERROR name an active subagent",
        "A3" => "a SUBAGENT_FINISHED outcome is success or suspended",
        "O1" | "O2" | "O3" | "O4" | "O5" => "every entity keeps one owner (subagentRunId)",
        "O6" => "no `subagentRunId: null`",
        "C1" => "the first chunk of a stream carries its id (a tool chunk its toolCallName)",
        "C2" => "a continuation chunk repeats an opener field only with the same value",
        "C3" => "an id-less continuation chunk has exactly one stream to continue",
        _ => "the event-stream rules of the protocol",
    }
}

/// The spec section of a verifier rule.
pub(crate) fn verifier_section(rule: ag_ui_core::Rule) -> &'static str {
    if rule.as_str().starts_with('C') {
        "§9.3"
    } else {
        "§9.1"
    }
}

/// Where a finding is.
#[derive(Debug, Clone, Default)]
pub(crate) struct Place {
    /// The suite case (a URL check).
    pub(crate) case: Option<String>,
    /// The 0-based run within the stream.
    pub(crate) run: Option<usize>,
    /// The 0-based event (SSE message or line) within the stream.
    pub(crate) event: Option<usize>,
    /// The JSON Pointer within the event.
    pub(crate) path: Option<String>,
}

/// One finding.
#[derive(Debug, Clone)]
pub(crate) struct Finding {
    /// How serious.
    pub(crate) severity: Severity,
    /// The rule's id: a verifier rule (`L1`, …) or one of the CLI's own.
    pub(crate) rule: String,
    /// The spec section.
    pub(crate) section: &'static str,
    /// Where.
    pub(crate) place: Place,
    /// What happened.
    pub(crate) message: String,
    /// What was expected.
    pub(crate) expected: String,
}

impl Finding {
    /// A finding of a CLI rule.
    pub(crate) fn cli(rule: &CliRule, place: Place, message: impl Into<String>) -> Self {
        Finding {
            severity: rule.severity,
            rule: rule.id.to_owned(),
            section: rule.section,
            place,
            message: message.into(),
            expected: rule.expected.to_owned(),
        }
    }

    /// A finding of a verifier rule.
    pub(crate) fn verifier(v: &ag_ui_core::Violation, place: Place) -> Self {
        Finding {
            severity: Severity::Error,
            rule: v.rule.as_str().to_owned(),
            section: verifier_section(v.rule),
            place,
            message: v.message.clone(),
            expected: verifier_expected(v.rule).to_owned(),
        }
    }

    /// The finding as JSON.
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "severity": self.severity.as_str(),
            "rule": self.rule,
            "section": self.section,
            "where": {
                "case": self.place.case,
                "run": self.place.run,
                "event": self.place.event,
                "path": self.place.path,
            },
            "message": self.message,
            "expected": self.expected,
        })
    }

    /// The finding in a line.
    pub(crate) fn to_line(&self) -> String {
        let mut at = Vec::new();
        if let Some(c) = &self.place.case {
            at.push(format!("case {c}"));
        }
        if let Some(r) = self.place.run {
            at.push(format!("run {r}"));
        }
        if let Some(e) = self.place.event {
            at.push(format!("event {e}"));
        }
        if let Some(p) = self.place.path.as_ref().filter(|p| !p.is_empty()) {
            at.push(p.clone());
        }
        let at = if at.is_empty() {
            String::new()
        } else {
            format!(" [{}]", at.join(", "))
        };
        format!(
            "{} {} ({}){at}: {}; expected: {}",
            self.severity.as_str(),
            self.rule,
            self.section,
            self.message,
            self.expected
        )
    }
}

#[cfg(test)]
mod tests {
    use super::CLI_RULES;

    #[test]
    fn the_readme_lists_every_rule_of_the_cli_with_its_expectation() {
        let readme = include_str!("../../README.md");
        for rule in CLI_RULES {
            let row = format!("| `{}` | {} |", rule.id, rule.severity.as_str());
            assert!(readme.contains(&row), "README has no row starting {row}");
            assert!(
                readme.contains(rule.expected),
                "README lacks: {}",
                rule.expected
            );
        }
    }
}
