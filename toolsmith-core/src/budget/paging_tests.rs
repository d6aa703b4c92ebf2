//! The output budget: paging through whole lists by cursor, cutting text, the budget holding for
//! every page and every shape, and cursors that refuse to be misused.

use super::{
    decode_cursor, encode_cursor, fit, fit_envelope, json_chars, page_digest, CursorError,
    MemoryRecordStore, OutputBudget, PageRequest, RecordStore, DEFAULT_HINT, DEFAULT_MAX_CHARS,
};
use crate::{Envelope, Status};
use serde_json::{json, Value};

/// Items of varying size, so pages hold different numbers of items.
fn items(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            json!({
                "id": i,
                "name": format!("product {i}"),
                "blurb": "x".repeat((i * 7) % 60),
            })
        })
        .collect()
}

/// Pages through `data` with `fit` and cursors, returning the ids seen and checking each page.
fn page_through(
    data: &Value,
    budget: OutputBudget,
    args: &Value,
    list: impl Fn(&Value) -> &Vec<Value>,
) -> Vec<u64> {
    let mut seen = Vec::new();
    let mut page = PageRequest::from_args(args, "cursor").expect("first page");
    let mut pages = 0;
    loop {
        pages += 1;
        assert!(pages < 500, "paging does not advance");
        let fitted = fit(data.clone(), budget, &page);
        assert!(
            json_chars(&fitted.data) <= budget.max_chars,
            "page {pages} exceeds the budget: {} > {}",
            json_chars(&fitted.data),
            budget.max_chars
        );
        assert!(fitted.truncated, "a partial page must say it is truncated");
        let shown = list(&fitted.data);
        assert!(!shown.is_empty(), "every page shows at least one item");
        let note = fitted.note.clone().expect("a cut result has a note");
        let total = list(data).len();
        assert_eq!(fitted.total, Some(total));
        let first = page.offset + 1;
        let last = page.offset + shown.len();
        if page.offset == 0 {
            assert!(
                note.starts_with(&format!("Showing {} of {total}", shown.len())),
                "{note}"
            );
        } else {
            assert!(
                note.starts_with(&format!("Showing {first}–{last} of {total}")),
                "{note}"
            );
        }
        seen.extend(shown.iter().map(|i| i["id"].as_u64().expect("id")));
        match fitted.cursor {
            Some(cursor) => {
                assert!(note.ends_with(DEFAULT_HINT), "{note}");
                assert_eq!(fitted.next_offset, Some(last));
                let mut next_args = args.clone();
                next_args["cursor"] = Value::String(cursor);
                page = PageRequest::from_args(&next_args, "cursor").expect("our own cursor");
                assert_eq!(page.offset, last);
            }
            None => {
                assert!(note.ends_with("This is the last page."), "{note}");
                break;
            }
        }
    }
    assert!(
        pages > 2,
        "the test data should need several pages, took {pages}"
    );
    seen
}

#[test]
fn a_top_level_array_is_paged_through_completely() {
    let data = Value::Array(items(200));
    let args = json!({"query": "boots", "limit": 200});
    let seen = page_through(&data, OutputBudget::default(), &args, |v| {
        v.as_array().unwrap()
    });
    assert_eq!(
        seen,
        (0..200).collect::<Vec<u64>>(),
        "every item exactly once, in order"
    );
}

#[test]
fn the_largest_array_field_of_an_object_is_paged_and_the_rest_kept() {
    let data = json!({
        "query": "boots",
        "facets": ["size", "color"],
        "results": items(200),
        "source": "catalog",
    });
    let args = json!({"query": "boots"});
    let seen = page_through(&data, OutputBudget::new(800), &args, |v| {
        v["results"].as_array().unwrap()
    });
    assert_eq!(seen, (0..200).collect::<Vec<u64>>());
    // The other fields travel with every page, in their order.
    let fitted = fit(
        data.clone(),
        OutputBudget::new(800),
        &PageRequest::first("d"),
    );
    let keys: Vec<&str> = fitted
        .data
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["query", "facets", "results", "source"]);
    assert_eq!(fitted.data["facets"], json!(["size", "color"]));
    assert!(fitted.note.unwrap().contains("items in \"results\""));
}

#[test]
fn pages_are_served_from_the_record_store_through_fit_envelope() {
    let store = MemoryRecordStore::new(8);
    let args = json!({"query": "all"});
    let full = Value::Array(items(200));
    let mut seen = Vec::new();
    let mut page = PageRequest::from_args(&args, "cursor").unwrap();
    let mut reference: Option<String> = None;
    loop {
        // The first page comes from running the tool; later ones from the stored record.
        let data = match &page.reference {
            None => full.clone(),
            Some(r) => store.get(r).expect("record kept"),
        };
        let mut env = Envelope::ok(data);
        assert!(fit_envelope(
            &mut env,
            OutputBudget::default(),
            &page,
            &store
        ));
        assert!(json_chars(env.data.as_ref().unwrap()) <= DEFAULT_MAX_CHARS);
        assert!(env.truncated);
        let r = env
            .reference
            .clone()
            .expect("a cut result names its raw record");
        if let Some(prev) = &reference {
            assert_eq!(prev, &r, "later pages reuse the stored record");
        }
        reference = Some(r);
        seen.extend(
            env.data
                .unwrap()
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["id"].as_u64().unwrap()),
        );
        match env.cursor {
            Some(c) => {
                let mut next = args.clone();
                next["cursor"] = json!(c);
                page = PageRequest::from_args(&next, "cursor").unwrap();
                assert_eq!(page.reference, reference);
            }
            None => break,
        }
    }
    assert_eq!(seen, (0..200).collect::<Vec<u64>>());
    assert_eq!(store.len(), 1, "one raw record for the whole paging");
}

#[test]
fn fit_envelope_leaves_small_and_non_ok_envelopes_alone() {
    let store = MemoryRecordStore::default();
    let mut small = Envelope::ok(json!({"a": 1}));
    let before = small.clone();
    assert!(!fit_envelope(
        &mut small,
        OutputBudget::default(),
        &PageRequest::first("d"),
        &store
    ));
    assert_eq!(small, before);
    let mut failed = Envelope::error(Status::Failed, "X", "failed");
    failed.data = Some(json!("y".repeat(5000)));
    let before = failed.clone();
    assert!(!fit_envelope(
        &mut failed,
        OutputBudget::default(),
        &PageRequest::first("d"),
        &store
    ));
    assert_eq!(failed, before);
    assert!(store.is_empty());
}

#[test]
fn data_within_budget_is_untouched() {
    for data in [
        json!(null),
        json!(42),
        json!("short text"),
        Value::Array(items(5)),
        json!({"results": items(3), "n": 3}),
    ] {
        let fitted = fit(
            data.clone(),
            OutputBudget::default(),
            &PageRequest::first("d"),
        );
        assert_eq!(fitted.data, data);
        assert!(!fitted.truncated);
        assert_eq!(fitted.note, None);
        assert_eq!(fitted.cursor, None);
        assert_eq!(fitted.total, None);
    }
    // Exactly at the budget is within it.
    let text = "a".repeat(DEFAULT_MAX_CHARS - 2);
    let fitted = fit(
        json!(text),
        OutputBudget::default(),
        &PageRequest::first("d"),
    );
    assert!(!fitted.truncated);
}

#[test]
fn long_text_is_cut_with_a_marker_and_paged() {
    let text: String = (0..900).map(|i| format!("word{i} ")).collect();
    let total = text.chars().count();
    let budget = OutputBudget::new(500);
    let fitted = fit(json!(text), budget, &PageRequest::first("d"));
    assert!(fitted.truncated);
    let shown = fitted.data.as_str().unwrap();
    assert!(json_chars(&fitted.data) <= 500);
    let marker_at = shown.find("… [truncated: ").expect("marker");
    let kept = &shown[..marker_at];
    assert!(text.starts_with(kept));
    assert_eq!(
        &shown[marker_at..],
        format!(
            "… [truncated: {} of {total} characters shown]",
            kept.chars().count()
        )
    );
    assert_eq!(fitted.total, Some(total));

    // Paging the text by cursor reassembles it exactly.
    let mut page = PageRequest::first("d");
    let mut rebuilt = String::new();
    loop {
        let f = fit(json!(text), budget, &page);
        assert!(json_chars(&f.data) <= 500);
        let s = f.data.as_str().unwrap();
        rebuilt.push_str(&s[..s.find("… [truncated: ").unwrap()]);
        match f.cursor {
            Some(c) => page = PageRequest::from_cursor(&c, "d").unwrap(),
            None => break,
        }
    }
    assert_eq!(rebuilt, text);
}

#[test]
fn text_is_cut_at_char_boundaries_and_escapes_are_counted() {
    let text = "é\"\n✓".repeat(1000);
    for max in [60, 61, 62, 63, 100, 777] {
        let f = fit(
            json!(text),
            OutputBudget::new(max),
            &PageRequest::first("d"),
        );
        assert!(f.truncated);
        assert!(
            json_chars(&f.data) <= max,
            "max {max}: {}",
            json_chars(&f.data)
        );
        let s = f.data.as_str().unwrap();
        let kept = &s[..s.find("… [truncated: ").unwrap()];
        assert!(text.starts_with(kept));
    }
    // A budget too small for even the marker shows nothing, and says so.
    let f = fit(json!(text), OutputBudget::new(20), &PageRequest::first("d"));
    assert!(f.truncated);
    assert_eq!(f.data, Value::Null);
    assert!(f.note.is_some());
}

#[test]
fn nested_long_strings_are_cut_and_reported() {
    let data = json!({
        "path": "src/main.rs",
        "size": 123456,
        "text": "fn main() {}\n".repeat(400),
    });
    let f = fit(
        data.clone(),
        OutputBudget::default(),
        &PageRequest::first("d").with_hint("Pass a line range to read less."),
    );
    assert!(f.truncated);
    assert!(json_chars(&f.data) <= DEFAULT_MAX_CHARS);
    assert_eq!(f.data["path"], "src/main.rs");
    assert_eq!(f.data["size"], 123456);
    let text = f.data["text"].as_str().unwrap();
    assert!(text.contains("… [truncated: "), "{text}");
    let note = f.note.unwrap();
    assert!(
        note.contains("shortened") && note.ends_with("Pass a line range to read less."),
        "{note}"
    );
    assert_eq!(f.cursor, None, "nothing to page");
}

#[test]
fn a_single_huge_item_is_shortened_so_paging_still_advances() {
    let data = json!([
        {"id": 0, "body": "a".repeat(5000)},
        {"id": 1, "body": "b"},
        {"id": 2, "body": "c".repeat(5000)},
    ]);
    let seen = page_through(&data, OutputBudget::new(300), &json!({}), |v| {
        v.as_array().unwrap()
    });
    assert_eq!(seen, vec![0, 1, 2]);
}

/// A small deterministic generator for shapes (no external crates, reproducible).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
    fn value(&mut self, depth: u32) -> Value {
        match self.next(if depth > 2 { 4 } else { 7 }) {
            0 => json!(null),
            1 => json!(self.next(1_000_000)),
            2 => json!("s".repeat(self.next(10) as usize)),
            3 => json!("é\"x\u{1}".repeat(self.next(400) as usize)),
            4 => Value::Array((0..self.next(30)).map(|_| self.value(depth + 1)).collect()),
            5 => Value::Object(
                (0..self.next(8))
                    .map(|i| (format!("k{i}"), self.value(depth + 1)))
                    .collect(),
            ),
            _ => Value::Array((0..self.next(300)).map(|i| json!(i)).collect()),
        }
    }
}

#[test]
fn the_budget_holds_for_every_shape_and_every_cut_is_declared() {
    let mut rng = Lcg(7);
    let (mut cut, mut whole) = (0, 0);
    for case in 0..400 {
        let data = rng.value(0);
        let max = [60, 120, 300, 700, 1500][case % 5];
        let fitted = fit(
            data.clone(),
            OutputBudget::new(max),
            &PageRequest::first("d"),
        );
        assert!(
            json_chars(&fitted.data) <= max,
            "case {case}: {} > {max} for {data}",
            json_chars(&fitted.data)
        );
        if fitted.data != data {
            assert!(fitted.truncated, "case {case}: cut without saying so");
            assert!(fitted.note.is_some(), "case {case}: cut without a note");
            cut += 1;
        } else {
            assert!(!fitted.truncated);
            whole += 1;
        }
    }
    assert!(
        cut > 40 && whole > 40,
        "the shapes should exercise both: {cut} cut, {whole} whole"
    );
}

#[test]
fn an_object_with_very_many_small_fields_falls_back_to_a_declared_preview() {
    let data = Value::Object((0..500).map(|i| (format!("field{i}"), json!(i))).collect());
    let f = fit(data, OutputBudget::new(400), &PageRequest::first("d"));
    assert!(f.truncated);
    assert!(json_chars(&f.data) <= 400);
    assert!(f.data.as_str().unwrap().starts_with("{\"field0\":0,"));
    assert!(f.note.unwrap().contains("cannot be shortened structurally"));
}

#[test]
fn a_cursor_past_the_end_says_so() {
    let data = Value::Array(items(50));
    let page = PageRequest::from_cursor(&encode_cursor(80, "d", None), "d").unwrap();
    let f = fit(data, OutputBudget::default(), &page);
    assert_eq!(f.data, json!([]));
    assert!(f.note.unwrap().contains("past the end"));
    assert_eq!(f.cursor, None);
}

#[test]
fn cursors_are_bound_to_their_arguments_and_refuse_tampering() {
    let args = json!({"query": "boots", "limit": 50});
    let digest = page_digest(&args, "cursor");
    // The cursor argument itself does not change the digest.
    let mut with_cursor = args.clone();
    with_cursor["cursor"] = json!("whatever");
    assert_eq!(page_digest(&with_cursor, "cursor"), digest);

    let cursor = encode_cursor(20, &digest, Some("rec_ab12_3"));
    let pos = decode_cursor(&cursor, &digest).unwrap();
    assert_eq!(pos.offset, 20);
    assert_eq!(pos.reference.as_deref(), Some("rec_ab12_3"));

    let other = page_digest(&json!({"query": "hats", "limit": 50}), "cursor");
    assert_eq!(decode_cursor(&cursor, &other), Err(CursorError::Foreign));
    let tampered = cursor.replacen(".20.", ".40.", 1);
    assert_ne!(tampered, cursor);
    assert!(decode_cursor(&tampered, &digest).is_err());
    for bad in [
        "",
        "20",
        "c1.20",
        "c1.x.y.z",
        "c1.-1..abcdefabcdef",
        "c1.20..nothexnothex",
        "c9.20..abcdefabcdef",
    ] {
        assert_eq!(
            decode_cursor(bad, &digest),
            Err(CursorError::Malformed),
            "{bad:?}"
        );
    }
    // A cursor of the wrong JSON type is malformed too.
    let mut wrong = args.clone();
    wrong["cursor"] = json!(20);
    assert_eq!(
        PageRequest::from_args(&wrong, "cursor"),
        Err(CursorError::Malformed)
    );

    // The model-facing error names the argument and says what to do.
    let e = CursorError::Foreign.into_tool_error("cursor");
    assert_eq!(e.status(), Status::InvalidInput);
    assert_eq!(e.code(), "INVALID_CURSOR");
    assert!(e
        .message()
        .starts_with("\"cursor\": The cursor belongs to a request with different arguments."));
    assert!(e.message().contains("leave the cursor out"));
}

#[test]
fn references_that_cannot_be_embedded_are_left_out_of_cursors() {
    let c = encode_cursor(3, "d", Some("s3://bucket/key.json"));
    let pos = decode_cursor(&c, "d").unwrap();
    assert_eq!(pos.offset, 3);
    assert_eq!(pos.reference, None);
}

#[test]
fn the_memory_store_evicts_the_oldest_records() {
    let store = MemoryRecordStore::new(3);
    let refs: Vec<String> = (0..5).map(|i| store.put(json!(i))).collect();
    assert_eq!(store.len(), 3);
    assert_eq!(store.get(&refs[0]), None);
    assert_eq!(store.get(&refs[1]), None);
    for (i, r) in refs.iter().enumerate().skip(2) {
        assert_eq!(store.get(r), Some(json!(i)));
    }
    let unique: std::collections::HashSet<&String> = refs.iter().collect();
    assert_eq!(unique.len(), 5);
    assert_eq!(store.get("rec_nope_1"), None);
}

#[test]
fn fits_agrees_with_the_exact_size_at_the_boundary() {
    use crate::budget::{fits, json_chars};
    let samples = [
        serde_json::json!(null),
        serde_json::json!("plain"),
        serde_json::json!("quote \" and newline \n and control \u{1}"),
        serde_json::json!([1, 2.5, -3, true, null, "x"]),
        serde_json::json!({"a": {"b": ["é", "👟", {"c": 12345678901234u64}]}, "key\twith tab": ""}),
        serde_json::json!((0..50).map(|i| format!("item {i}")).collect::<Vec<_>>()),
    ];
    for v in samples {
        let exact = json_chars(&v);
        assert!(fits(&v, exact), "{v} fits in its own size {exact}");
        assert!(!fits(&v, exact - 1), "{v} does not fit in {}", exact - 1);
        assert!(fits(&v, exact * 10), "{v} fits in a larger budget");
    }
}
