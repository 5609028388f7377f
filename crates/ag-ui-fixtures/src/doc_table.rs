//! Markdown tables in `docs/` that pin what the code says (the error tables of
//! `docs/errors.md`): read a table's rows, compare each with the code, and either fail with
//! every mismatch or, with `AG_UI_BLESS=1` in the environment, rewrite the rows from the
//! code (then review the diff).
//!
//! ```no_run
//! use ag_ui_fixtures::doc_table::{DocTable, code};
//!
//! let mut table = DocTable::read("../../docs/errors.md", "| reads as | input | message |").unwrap();
//! for row in table.rows() {
//!     let got = format!("message for {}", code(&row.cells[1]));
//!     if got != row.cells[2] {
//!         let line = format!("| {} | {} | {got} |", row.cells[0], row.cells[1]);
//!         table.mismatch(row.line, format!("doc: {}\ncode: {got}", row.cells[2]), line);
//!     }
//! }
//! table.finish().unwrap();
//! ```

use std::path::{Path, PathBuf};

/// The environment variable that turns a check into a rewrite.
pub const BLESS_VAR: &str = "AG_UI_BLESS";

/// One table of a markdown file, read for checking.
#[derive(Debug, Clone)]
pub struct DocTable {
    path: PathBuf,
    header: String,
    lines: Vec<String>,
    rows: Vec<Row>,
    mismatches: Vec<String>,
}

/// A body row of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Row {
    /// The 0-based line of the file (give it back to [`DocTable::mismatch`]).
    pub line: usize,
    /// The cells, trimmed, with `\|` unescaped.
    pub cells: Vec<String>,
}

impl DocTable {
    /// Reads the table whose header line is `header` (compared trimmed) from the markdown
    /// file at `path`: the rows after the header and its `---` line, up to the first line
    /// that does not start with `|`.
    ///
    /// # Errors
    /// The file cannot be read, or has no such header.
    pub fn read(path: impl AsRef<Path>, header: &str) -> Result<Self, String> {
        let path = path.as_ref().to_path_buf();
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let start = lines
            .iter()
            .position(|l| l.trim() == header.trim())
            .ok_or_else(|| format!("{} has no table headed {header:?}", path.display()))?;
        let mut rows = Vec::new();
        for (i, line) in lines.iter().enumerate().skip(start + 1) {
            if !line.trim_start().starts_with('|') {
                break;
            }
            if line.contains("---") && i == start + 1 {
                continue;
            }
            rows.push(Row {
                line: i,
                cells: cells(line),
            });
        }
        Ok(Self {
            path,
            header: header.to_owned(),
            lines,
            rows,
            mismatches: Vec::new(),
        })
    }

    /// The body rows.
    #[must_use]
    pub fn rows(&self) -> Vec<Row> {
        self.rows.clone()
    }

    /// Records that the row at `line` disagrees with the code: `what` says how (shown when
    /// the check fails), `replacement` is the row as the code would write it (written when
    /// blessing).
    pub fn mismatch(
        &mut self,
        line: usize,
        what: impl Into<String>,
        replacement: impl Into<String>,
    ) {
        self.mismatches.push(what.into());
        if let Some(l) = self.lines.get_mut(line) {
            *l = replacement.into();
        }
    }

    /// Checks the whole body against `expected` (rows as the code writes them, `| … |`
    /// lines, in order), for a table generated from the code: each row missing, extra or
    /// different is a mismatch, and blessing writes exactly `expected` in place of the body
    /// (so rows are added and removed too). Use it instead of [`mismatch`](Self::mismatch)
    /// on one table.
    pub fn expect_rows(&mut self, expected: &[String]) {
        let found: Vec<String> = self
            .rows
            .iter()
            .map(|r| self.lines[r.line].clone())
            .collect();
        let same = |a: &str, b: &str| cells(a) == cells(b);
        if found.len() == expected.len() && found.iter().zip(expected).all(|(a, b)| same(a, b)) {
            return;
        }
        for line in &found {
            if !expected.iter().any(|e| same(e, line)) {
                self.mismatches.push(format!("  doc only:  {line}"));
            }
        }
        for line in expected {
            if !found.iter().any(|f| same(f, line)) {
                self.mismatches.push(format!("  code only: {line}"));
            }
        }
        if self.mismatches.is_empty() {
            self.mismatches
                .push("  the rows are in another order than the code's".to_owned());
        }
        let header = self
            .lines
            .iter()
            .position(|l| l.trim() == self.header.trim())
            .unwrap_or(0);
        let start = header + 2;
        let end = self.rows.last().map_or(start, |r| r.line + 1);
        let end = end.max(start).min(self.lines.len());
        self.lines.splice(start..end, expected.iter().cloned());
    }

    /// Ends the check: with [`BLESS_VAR`] set, writes the file with the replaced rows;
    /// otherwise fails with every mismatch recorded.
    ///
    /// # Errors
    /// The recorded mismatches (without blessing), or the file cannot be written.
    pub fn finish(self) -> Result<(), String> {
        if std::env::var_os(BLESS_VAR).is_some() {
            let mut text = self.lines.join("\n");
            text.push('\n');
            return std::fs::write(&self.path, text)
                .map_err(|e| format!("cannot write {}: {e}", self.path.display()));
        }
        if self.mismatches.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{} (table {:?}) disagrees with the code ({BLESS_VAR}=1 rewrites it, then review the diff):\n{}",
                self.path.display(),
                self.header,
                self.mismatches.join("\n")
            ))
        }
    }
}

/// Splits a markdown table row into its cells, trimmed, honouring `\|` escapes.
#[must_use]
pub fn cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                if let Some(last) = out.last_mut() {
                    last.push('|');
                }
                chars.next();
            }
            '|' => out.push(String::new()),
            c => {
                if let Some(last) = out.last_mut() {
                    last.push(c);
                }
            }
        }
    }
    out.iter().map(|c| c.trim().to_owned()).collect()
}

/// The text of a code span, `` `x` `` or ``` `` x `` ```; a cell without one, trimmed.
#[must_use]
pub fn code(cell: &str) -> String {
    let t = cell.trim();
    if let Some(inner) = t.strip_prefix("`` ").and_then(|t| t.strip_suffix(" ``")) {
        return inner.to_owned();
    }
    t.strip_prefix('`')
        .and_then(|t| t.strip_suffix('`'))
        .unwrap_or(t)
        .to_owned()
}

/// A cell's text written back into a row: `|` escaped.
#[must_use]
pub fn escape(text: &str) -> String {
    text.replace('|', "\\|")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests fail by panicking")]
mod tests {
    use super::*;

    #[test]
    fn cells_honour_escapes_and_code_spans_unwrap() {
        assert_eq!(cells("| `a` | b \\| c |  d |"), ["`a`", "b | c", "d"]);
        assert_eq!(code("`` `x` ``"), "`x`");
        assert_eq!(code("`y`"), "y");
        assert_eq!(code("plain"), "plain");
    }
}
