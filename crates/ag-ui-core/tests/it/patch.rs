//! `JsonPatch::apply`: RFC 6902 Appendix A, the failure cases the official client gets
//! wrong (client-reference §1.7 item 5), atomicity and spec §9.4's numeric `test`.

use ag_ui_core::{JsonPatch, JsonPatchOperation, JsonPointer, PatchError};
use serde_json::{Value, json};

fn patch(ops: Value) -> JsonPatch {
    ag_ui_core::read::from_str(&ops.to_string()).unwrap()
}

/// Applies `ops` to `doc` both by reference and by value; both must agree.
fn apply(doc: Value, ops: Value) -> Result<Value, PatchError> {
    let p = patch(ops);
    let mut by_ref = doc.clone();
    let r1 = p.apply(&mut by_ref);
    let mut by_val = doc.clone();
    let r2 = p.apply_owned(&mut by_val);
    assert_eq!(r1, r2, "apply and apply_owned disagree");
    assert_eq!(by_ref, by_val);
    if r1.is_err() {
        assert_eq!(by_ref, doc, "a failed patch changed the document");
    }
    r1.map(|()| by_ref)
}

#[test]
fn rfc6902_appendix_a_successes() {
    let cases = [
        // A.1 Adding an Object Member
        (
            json!({"foo":"bar"}),
            json!([{"op":"add","path":"/baz","value":"qux"}]),
            json!({"baz":"qux","foo":"bar"}),
        ),
        // A.2 Adding an Array Element
        (
            json!({"foo":["bar","baz"]}),
            json!([{"op":"add","path":"/foo/1","value":"qux"}]),
            json!({"foo":["bar","qux","baz"]}),
        ),
        // A.3 Removing an Object Member
        (
            json!({"baz":"qux","foo":"bar"}),
            json!([{"op":"remove","path":"/baz"}]),
            json!({"foo":"bar"}),
        ),
        // A.4 Removing an Array Element
        (
            json!({"foo":["bar","qux","baz"]}),
            json!([{"op":"remove","path":"/foo/1"}]),
            json!({"foo":["bar","baz"]}),
        ),
        // A.5 Replacing a Value
        (
            json!({"baz":"qux","foo":"bar"}),
            json!([{"op":"replace","path":"/baz","value":"boo"}]),
            json!({"baz":"boo","foo":"bar"}),
        ),
        // A.6 Moving a Value
        (
            json!({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}),
            json!([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]),
            json!({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}),
        ),
        // A.7 Moving an Array Element
        (
            json!({"foo":["all","grass","cows","eat"]}),
            json!([{"op":"move","from":"/foo/1","path":"/foo/3"}]),
            json!({"foo":["all","cows","eat","grass"]}),
        ),
        // A.8 Testing a Value: Success
        (
            json!({"baz":"qux","foo":["a",2,"c"]}),
            json!([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]),
            json!({"baz":"qux","foo":["a",2,"c"]}),
        ),
        // A.10 Adding a Nested Member Object
        (
            json!({"foo":"bar"}),
            json!([{"op":"add","path":"/child","value":{"grandchild":{}}}]),
            json!({"foo":"bar","child":{"grandchild":{}}}),
        ),
        // A.11 Ignoring Unrecognized Elements
        (
            json!({"foo":"bar"}),
            json!([{"op":"add","path":"/baz","value":"qux","xyz":123}]),
            json!({"foo":"bar","baz":"qux"}),
        ),
        // A.14 ~ Escape Ordering
        (
            json!({"/":9,"~1":10}),
            json!([{"op":"test","path":"/~01","value":10}]),
            json!({"/":9,"~1":10}),
        ),
        // A.16 Adding an Array Value
        (
            json!({"foo":["bar"]}),
            json!([{"op":"add","path":"/foo/-","value":["abc","def"]}]),
            json!({"foo":["bar",["abc","def"]]}),
        ),
    ];
    for (i, (doc, ops, expected)) in cases.into_iter().enumerate() {
        assert_eq!(apply(doc, ops).unwrap(), expected, "case {i}");
    }
}

#[test]
fn rfc6902_appendix_a_errors() {
    // A.9 Testing a Value: Error
    let e = apply(
        json!({"baz":"qux"}),
        json!([{"op":"test","path":"/baz","value":"bar"}]),
    )
    .unwrap_err();
    assert_eq!((e.index, e.op, e.path.as_str()), (0, "test", "/baz"));
    // A.12 Adding to a Nonexistent Target
    let e = apply(
        json!({"foo":"bar"}),
        json!([{"op":"add","path":"/baz/bat","value":"qux"}]),
    )
    .unwrap_err();
    assert_eq!((e.index, e.op), (0, "add"));
    // A.15 Comparing Strings and Numbers
    apply(
        json!({"/":9,"~1":10}),
        json!([{"op":"test","path":"/~01","value":"10"}]),
    )
    .unwrap_err();
}

/// What fast-json-patch (the official client's library) accepts and RFC 6902 refuses.
#[test]
fn what_the_rfc_refuses_is_refused() {
    let refused = [
        // An operation below a scalar root.
        (json!(5), json!([{"op":"add","path":"/x","value":1}])),
        // A leading zero in an array index.
        (
            json!({"a":[1,2]}),
            json!([{"op":"replace","path":"/a/01","value":0}]),
        ),
        // Moving past the end of an array (the element is removed first).
        (
            json!({"a":[1,2,3]}),
            json!([{"op":"move","from":"/a/0","path":"/a/3"}]),
        ),
        // Removing the whole document.
        (json!({"a":1}), json!([{"op":"remove","path":""}])),
        // `length` of a string is not a JSON member.
        (
            json!({"s":"abc"}),
            json!([{"op":"test","path":"/s/length","value":3}]),
        ),
        // `-` names no element to remove or replace.
        (json!({"a":[1]}), json!([{"op":"remove","path":"/a/-"}])),
        // Out-of-range index.
        (
            json!({"a":[1]}),
            json!([{"op":"add","path":"/a/2","value":0}]),
        ),
        // Moving a value into its own child.
        (
            json!({"a":{"b":{}}}),
            json!([{"op":"move","from":"/a","path":"/a/b/c"}]),
        ),
        // Copying from nowhere.
        (json!({}), json!([{"op":"copy","from":"/x","path":"/y"}])),
    ];
    for (i, (doc, ops)) in refused.into_iter().enumerate() {
        assert!(apply(doc, ops.clone()).is_err(), "case {i}: {ops} applied");
    }
    // `__proto__` is an ordinary key.
    assert_eq!(
        apply(
            json!({}),
            json!([{"op":"add","path":"/__proto__","value":1}])
        )
        .unwrap(),
        json!({"__proto__":1})
    );
    // Replacing the whole document is allowed, with any JSON value.
    assert_eq!(
        apply(
            json!({"a":1}),
            json!([{"op":"replace","path":"","value":[1]}])
        )
        .unwrap(),
        json!([1])
    );
}

#[test]
fn a_failing_patch_leaves_the_document_unchanged() {
    let doc = json!({"list":[1,2,3],"obj":{"k":"v"},"n":1});
    let e = apply(
        doc,
        json!([
            {"op":"remove","path":"/list/0"},
            {"op":"move","from":"/obj/k","path":"/moved"},
            {"op":"copy","from":"/list","path":"/copy"},
            {"op":"replace","path":"/n","value":{"big":[1,2,3]}},
            {"op":"add","path":"/list/-","value":4},
            {"op":"test","path":"/n","value":2}
        ]),
    )
    .unwrap_err();
    assert_eq!((e.index, e.op), (5, "test"));
    assert_eq!(e.pointer(), "/5");
    let shown = e.to_string();
    assert!(
        shown.contains("operation 5") && shown.contains("/n"),
        "{shown}"
    );
}

#[test]
fn test_compares_numbers_by_value() {
    for (doc, value) in [
        (json!({"n":2}), json!(2.0)),
        (json!({"n":2.0}), json!(2)),
        (json!({"n":[1,{"x":0}]}), json!([1.0,{"x":0.0}])),
        (json!({"n":-3}), json!(-3.0)),
        (json!({"n":1e20}), json!(1e20)),
    ] {
        let ops =
            json!([{"op":"test","path":"/n","value":value},{"op":"add","path":"/ok","value":true}]);
        let out = apply(doc.clone(), ops).unwrap();
        assert_eq!(out["ok"], true, "{doc} vs {value}");
    }
    // Different numbers still differ, and a numeric test failing later in the patch keeps
    // the document unchanged.
    for (doc, value) in [(json!({"n":2}), json!(2.5)), (json!({"n":2}), json!("2"))] {
        let ops =
            json!([{"op":"add","path":"/x","value":1},{"op":"test","path":"/n","value":value}]);
        let e = apply(doc, ops).unwrap_err();
        assert_eq!(e.index, 1);
    }
}

#[test]
fn an_invalid_pointer_built_in_code_is_an_error_not_a_panic() {
    let p = JsonPatch::from(vec![
        JsonPatchOperation::add("/ok", 1),
        JsonPatchOperation::add(JsonPointer::from("no-slash"), 1),
    ]);
    let mut doc = json!({});
    let e = p.apply(&mut doc).unwrap_err();
    assert_eq!((e.index, e.op), (1, "add"));
    assert!(e.reason.contains("RFC 6901"), "{e}");
    assert_eq!(doc, json!({}));
}

#[test]
fn extra_members_of_an_operation_do_not_change_what_it_does() {
    assert_eq!(
        apply(
            json!({"a":1}),
            json!([{"op":"remove","path":"/a","value":"ignored","from":"/x"}])
        )
        .unwrap(),
        json!({})
    );
}

/// A patch whose `move` fails after removing its source, following an operation inside that
/// source: undoing must put everything back (json-patch 5.0.0 panics here, and leaves a
/// failed `move`'s source removed).
#[test]
fn a_failing_move_is_undone_with_what_came_before() {
    let e = apply(
        json!({"b":{}}),
        json!([{"op":"add","path":"/b/c","value":1},{"op":"move","from":"/b","path":"/b2/z"}]),
    )
    .unwrap_err();
    assert_eq!((e.index, e.op), (1, "move"));
    let e = apply(
        json!({"a":[1,2,3]}),
        json!([{"op":"add","path":"/a/-","value":4},{"op":"move","from":"/a/0","path":"/a/4"}]),
    )
    .unwrap_err();
    assert_eq!(e.index, 1);
    // A successful move undone by a later failure.
    let e = apply(
        json!({"a":{"x":1},"o":{"k":2}}),
        json!([
            {"op":"move","from":"/a/x","path":"/o/k"},
            {"op":"move","from":"/o","path":""},
            {"op":"test","path":"/k","value":0}
        ]),
    )
    .unwrap_err();
    assert_eq!(e.index, 2);
}
