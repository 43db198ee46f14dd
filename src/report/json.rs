//! Machine-readable JSON for the test harness and scripts:
//! `{"diagnostics": [...], "stats": ...}`, pretty printed, ending in a newline.
//!
//! Each diagnostic is `diag::Diagnostic` serialized by serde as is, so the field names are the
//! struct's (`rule`, `category`, `loc`, `function`, `allocator`, `message`, `path`,
//! `line_in_function`) and enums use their kebab-case ids; changing `diag.rs` changes this format.

use std::io::{self, Write};

use serde::Serialize;

use super::Notification;
use crate::diag::Diagnostic;

/// The document, borrowed so that serializing copies nothing. Field order is output order.
#[derive(Serialize)]
struct Document<'a> {
    diagnostics: &'a [Diagnostic],
    stats: &'a serde_json::Value,
    notifications: &'a [Notification],
}

/// Writes `diags`, `stats` (passed through untouched) and the run's `notifications`. Fails only
/// if `out` does.
pub fn render_json(
    diags: &[Diagnostic],
    stats: &serde_json::Value,
    notifications: &[Notification],
    out: &mut dyn Write,
) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &Document { diagnostics: diags, stats, notifications })?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures;
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn round_trips_with_the_documented_fields() {
        let diags = fixtures::all();
        let stats = json!({"sites": 5, "reported": 3, "categories": {"freed-conditional": 1}});
        let mut out = Vec::new();
        render_json(&diags, &stats, &[], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with("}\n"), "newline at the end");
        assert!(text.contains("\n  \"diagnostics\": ["), "pretty printed");

        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["stats"], stats);
        let list = doc["diagnostics"].as_array().unwrap();
        assert_eq!(list.len(), 3);
        // Everything serde produces for the structs comes back unchanged.
        for (d, v) in diags.iter().zip(list) {
            assert_eq!(&serde_json::to_value(d).unwrap(), v);
        }

        let first = &list[0];
        let mut keys: Vec<&str> = first.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["allocator", "category", "function", "line_in_function", "loc", "message", "path", "rule", "suppression"]
        );
        assert_eq!(first["suppression"], Value::Null);
        assert_eq!(first["rule"], "leak");
        assert_eq!(first["category"], "freed-conditional");
        assert_eq!(first["loc"], json!({"file": fixtures::FILE, "line": 6, "col": 14}));
        assert_eq!(first["function"], "make");
        assert_eq!(first["allocator"], "malloc");
        assert_eq!(first["line_in_function"], 1);
        assert_eq!(first["path"][1]["kind"], "branch");
        assert_eq!(first["path"][1]["loc"]["line"], 8);
        assert_eq!(first["path"][1]["message"], "branch 'q == NULL' is taken");
        assert_eq!(list[1]["rule"], "double-free");
        assert_eq!(list[2]["category"], "never-freed-local");
    }

    #[test]
    fn empty_list() {
        let mut out = Vec::new();
        render_json(&[], &Value::Null, &[], &mut out).unwrap();
        let doc: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(doc, json!({"diagnostics": [], "stats": null, "notifications": []}));
    }

    #[test]
    fn notifications_carry_level_id_and_message() {
        let notes = [super::super::Notification {
            level: super::super::NotificationLevel::Error,
            id: "internal-error",
            message: "a.c:3: internal error while checking 'f': boom".to_string(),
        }];
        let mut out = Vec::new();
        render_json(&[], &Value::Null, &notes, &mut out).unwrap();
        let doc: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            doc["notifications"],
            json!([{"level": "error", "id": "internal-error", "message": "a.c:3: internal error while checking 'f': boom"}])
        );
    }
}
