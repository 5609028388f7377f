//! The module layout, checked from the sources: no import cycles; the error type is a leaf.

use ag_ui_fixtures::layout::Layout;

#[test]
fn no_import_cycles_and_the_error_is_a_leaf() {
    let layout = Layout::scan(concat!(env!("CARGO_MANIFEST_DIR"), "/src")).unwrap();
    assert_eq!(
        layout.cycles(),
        Vec::<String>::new(),
        "modules importing each other"
    );
    assert_eq!(
        layout.uses("error"),
        Default::default(),
        "error imports other modules"
    );
    // The check sees imports.
    assert!(layout.uses("emitter::run").contains("error"));
    assert!(layout.uses("emitter::run").contains("ids"));
}
