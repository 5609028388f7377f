//! The module layout, checked from the sources: no import cycles. Warnings (`warning`) and
//! errors (`error`) are leaves; the compatibility layer, the request and the stream build on
//! them, and `http` on all of them.

use ag_ui_fixtures::layout::Layout;

#[test]
fn no_import_cycles_and_warnings_and_errors_are_leaves() {
    let layout = Layout::scan(concat!(env!("CARGO_MANIFEST_DIR"), "/src")).unwrap();
    assert_eq!(
        layout.cycles(),
        Vec::<String>::new(),
        "modules importing each other"
    );
    for leaf in ["warning", "error"] {
        assert!(layout.has(leaf), "no module {leaf}");
        assert_eq!(
            layout.uses(leaf),
            Default::default(),
            "{leaf} imports other modules"
        );
    }
    // The check sees imports, also through the root's re-exports.
    assert!(layout.uses("compat").contains("warning"));
    assert!(layout.uses("request").contains("error"));
    assert!(layout.uses("http").contains("stream"));
}
