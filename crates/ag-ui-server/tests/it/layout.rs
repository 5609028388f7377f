//! The module layout, checked from the sources: no import cycles, in the server as in every
//! crate of the workspace.

use ag_ui_fixtures::layout::Layout;

#[test]
fn no_import_cycles() {
    let layout = Layout::scan(concat!(env!("CARGO_MANIFEST_DIR"), "/src")).unwrap();
    assert_eq!(
        layout.cycles(),
        Vec::<String>::new(),
        "modules importing each other"
    );
    // The check sees imports, also in folders.
    assert!(layout.uses("guard").contains("agent"));
    assert!(layout.has("runs"));
}
