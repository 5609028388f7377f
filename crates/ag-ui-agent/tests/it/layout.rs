//! The module layout, checked from the sources: no import cycles; the model trait and the
//! tools are leaves the agent and the driver build on.

use ag_ui_fixtures::layout::Layout;

#[test]
fn no_import_cycles_and_model_and_tools_are_leaves() {
    let layout = Layout::scan(concat!(env!("CARGO_MANIFEST_DIR"), "/src")).unwrap();
    assert_eq!(
        layout.cycles(),
        Vec::<String>::new(),
        "modules importing each other"
    );
    for leaf in ["model", "tools"] {
        assert!(layout.has(leaf), "no module {leaf}");
        assert_eq!(
            layout.uses(leaf),
            Default::default(),
            "{leaf} imports other modules"
        );
    }
    assert!(layout.uses("driver").contains("agent"));
    assert!(layout.uses("agent").contains("model"));
}
