//! The module layout, checked from the sources: no import cycles.

use ag_ui_fixtures::layout::Layout;

#[test]
fn no_import_cycles() {
    let layout = Layout::scan(concat!(env!("CARGO_MANIFEST_DIR"), "/src")).unwrap();
    assert_eq!(
        layout.cycles(),
        Vec::<String>::new(),
        "modules importing each other"
    );
    assert!(layout.has("render"));
}
