//! The module layout of docs/design.md ("Layout"), checked from the sources with the
//! workspace's shared checker (`ag_ui_fixtures::layout`): no import cycles inside a folder,
//! no cycle at all, and `codec` calls nothing in `model`, `stream` or `thread`.

use ag_ui_fixtures::layout::Layout;

#[test]
fn no_import_cycles_in_a_folder_and_codec_calls_no_upper_layer() {
    let layout = Layout::scan(concat!(env!("CARGO_MANIFEST_DIR"), "/src")).unwrap();
    assert!(layout.has("codec::read") && layout.has("model::event"));
    for folder in ["codec", "model", "stream", "thread"] {
        assert_eq!(
            layout.cycles_under(folder),
            Vec::<String>::new(),
            "modules of {folder} importing each other"
        );
    }
    // What codec reads of model is the event table (`codec/event_type.rs` declares
    // `EventType` from it), a macro that imports nothing; no cycle crosses the layers.
    assert_eq!(
        layout.imports_between("codec", &["model", "stream", "thread"]),
        ["codec::event_type -> model::event::table"],
        "codec must not call model, stream or thread"
    );
    assert!(layout.uses("model::event::table").is_empty());
    assert_eq!(layout.cycles(), Vec::<String>::new());
    // The check sees imports: the two that used to form cycles are still found.
    assert!(layout.uses("codec::wire").contains("codec::skip"));
    assert!(layout.uses("codec::skip").contains("codec::key"));
    assert!(layout.uses("model::tool").contains("codec::read"));
}

/// `docs/design.md`: boxing the large, rare variants keeps `Event` at 120 bytes (on a
/// 64-bit target), so a variant that grows it fails here.
#[cfg(target_pointer_width = "64")]
#[test]
fn an_event_is_120_bytes() {
    assert_eq!(std::mem::size_of::<ag_ui_core::Event>(), 120);
}
