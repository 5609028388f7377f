//! Pins the table of `docs/errors.md`: every row's input, read as the row says, must give
//! exactly the message in the row. `AG_UI_BLESS=1` rewrites the message column from what
//! the code says (then review the diff).

use ag_ui_core::read::decode;
use ag_ui_core::*;
use ag_ui_fixtures::doc_table::{DocTable, code, escape};

const HEADER: &str = "| reads as | input | message |";

/// Bytes of an SSE input written with `\n`, `\r`, `\xNN` and `\\` escapes.
fn sse_bytes(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b'\\' => out.push(b'\\'),
                b'x' => {
                    let hex = std::str::from_utf8(&b[i + 2..i + 4]).unwrap();
                    out.push(u8::from_str_radix(hex, 16).unwrap());
                    i += 2;
                }
                other => panic!("unknown escape \\{}", other as char),
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// What reading `input` as `reads_as` says.
fn message(reads_as: &str, input: &str) -> String {
    fn err<T: std::fmt::Debug, E: std::fmt::Display>(r: Result<T, E>) -> String {
        match r {
            Ok(v) => format!("(accepted: {v:?})"),
            Err(e) => e.to_string(),
        }
    }
    match reads_as {
        "Event" => err(decode::<Event>(input, ReadMode::Forgiving)),
        "Event (exact)" => err(decode::<Event>(input, ReadMode::Exact)),
        "RunAgentInput" => err(decode::<RunAgentInput>(input, ReadMode::Forgiving)),
        "RunAgentInput (exact)" => err(decode::<RunAgentInput>(input, ReadMode::Exact)),
        "Message" => err(decode::<Message>(input, ReadMode::Forgiving)),
        "EventDecoder" => err(EventDecoder::default().decode(input)),
        "Message (exact)" => err(decode::<Message>(input, ReadMode::Exact)),
        "EventDecoder (exact)" => err(EventDecoder::new(ReadMode::Exact).decode(input)),
        "SseReader" => {
            let mut r = SseReader::new();
            err(r.feed(&sse_bytes(input)).and_then(|()| r.finish()))
        }
        "ProtocolVersion" => err(input.parse::<ag_ui_core::ProtocolVersion>()),
        "Event (1.0, exact)" => err(ag_ui_core::read::decode_for::<Event>(
            input,
            ReadMode::Exact,
            ag_ui_core::ProtocolVersion::V1_0,
        )),
        other => panic!("unknown reader {other:?} in docs/errors.md"),
    }
}

#[test]
fn docs_errors_table_matches_the_code() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/errors.md");
    let mut table = DocTable::read(&path, HEADER).unwrap();
    let rows = table.rows();
    for row in &rows {
        let c = &row.cells;
        assert_eq!(c.len(), 3, "row without three cells: {c:?}");
        let (reads_as, input) = (code(&c[0]), code(&c[1]));
        let got = message(&reads_as, &input);
        if !["SseReader", "ProtocolVersion"].contains(&reads_as.as_str()) {
            // Every document error names where and what was expected.
            let e = match reads_as.as_str() {
                "RunAgentInput" | "RunAgentInput (exact)" => {
                    decode::<RunAgentInput>(&input, ReadMode::Exact).err()
                }
                "Message" => decode::<Message>(&input, ReadMode::Exact).err(),
                _ => decode::<Event>(&input, ReadMode::Exact).err(),
            };
            if let Some(e) = e {
                crate::contract::error_explains_itself(&input, &e).unwrap();
            }
        }
        if got != c[2] {
            table.mismatch(
                row.line,
                format!("{reads_as} {input}\n  doc:  {}\n  code: {got}", c[2]),
                format!("| {} | {} | {} |", c[0], escape(&c[1]), escape(&got)),
            );
        }
    }
    assert!(
        rows.len() >= 20,
        "docs/errors.md has only {} rows under {HEADER:?}",
        rows.len()
    );
    table.finish().unwrap();
}
