//! The fuzz entry points of `seal_record::fuzz`, run over the golden vectors and over generated
//! inputs, so the checks a fuzzer runs also run on stable.

use proptest::prelude::*;
use seal_record::fuzz;

const MANIFEST_VECTORS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../spec/vectors/manifest-v1.json"
));

#[test]
fn vectors_pass_every_check() {
    let doc: serde_json::Value = serde_json::from_str(MANIFEST_VECTORS).unwrap();
    for case in doc["valid"]
        .as_array()
        .unwrap()
        .iter()
        .chain(doc["invalid"].as_array().unwrap())
    {
        let text = case
            .get("canonical")
            .or_else(|| case.get("json"))
            .and_then(|v| v.as_str())
            .unwrap();
        fuzz::manifest_json(text.as_bytes()).unwrap();
        fuzz::log_append(text.as_bytes()).unwrap();
        fuzz::pae_roundtrip(text.as_bytes()).unwrap();
    }
    for case in doc["paths"].as_array().unwrap() {
        fuzz::path(case["input"].as_str().unwrap().as_bytes()).unwrap();
    }
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(1024))]

    #[test]
    fn generated_inputs_pass(data in prop::collection::vec(any::<u8>(), 0..64)) {
        prop_assert!(fuzz::pae_roundtrip(&data).is_ok());
        prop_assert!(fuzz::log_append(&data).is_ok());
        prop_assert!(fuzz::path(&data).is_ok());
        prop_assert!(fuzz::manifest_json(&data).is_ok());
    }

    #[test]
    fn generated_paths_pass(path in "(\\.{1,3}|[a-z\\\\]{1,3}|)(/(\\.{1,3}|[a-z]{1,3}|)){0,6}") {
        prop_assert!(fuzz::path(path.as_bytes()).is_ok());
    }

    #[test]
    fn generated_records_pass(n in any::<i32>(), s in "[a-z\"\\\\ ]{0,8}") {
        let record = format!(r#"{{"_type":"t","n":{n},"s":{}}}"#, serde_json::to_string(&s).unwrap());
        prop_assert!(fuzz::log_append(record.as_bytes()).is_ok());
    }
}
