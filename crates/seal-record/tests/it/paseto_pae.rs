//! PAE checked against the PASETO v4 public vectors: the Ed25519 signature in each `4-S-*` case
//! is over `PAE(header, payload, footer, implicit assertion)`, so a signature that verifies over
//! our bytes proves the bytes are right. Negative twins: one flipped bit, one byte moved across a
//! piece boundary.

use ring::signature::{UnparsedPublicKey, ED25519};
use seal_record::{pae, unpae};

const VECTORS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../vectors/paseto/v4.json"
));

struct Case {
    name: String,
    public_key: Vec<u8>,
    header: Vec<u8>,
    payload: Vec<u8>,
    footer: Vec<u8>,
    implicit: Vec<u8>,
    signature: Vec<u8>,
}

fn base64url_decode(text: &str) -> Vec<u8> {
    let mut bits: u32 = 0;
    let mut count = 0;
    let mut out = Vec::new();
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => panic!("not base64url: {c}"),
        };
        bits = (bits << 6) | u32::from(v);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    out
}

fn cases() -> Vec<Case> {
    let doc: serde_json::Value = serde_json::from_str(VECTORS).unwrap();
    let mut out = Vec::new();
    for test in doc["tests"].as_array().unwrap() {
        let name = test["name"].as_str().unwrap();
        if !name.starts_with("4-S-") {
            continue;
        }
        assert!(!test["expect-fail"].as_bool().unwrap());
        let token = test["token"].as_str().unwrap();
        let header = "v4.public.";
        let rest = token.strip_prefix(header).unwrap();
        let body = rest.split('.').next().unwrap();
        let decoded = base64url_decode(body);
        let (payload, signature) = decoded.split_at(decoded.len() - 64);
        assert_eq!(payload, test["payload"].as_str().unwrap().as_bytes());
        out.push(Case {
            name: name.to_string(),
            public_key: hex::decode(test["public-key"].as_str().unwrap()).unwrap(),
            header: header.as_bytes().to_vec(),
            payload: payload.to_vec(),
            footer: test["footer"].as_str().unwrap().as_bytes().to_vec(),
            implicit: test["implicit-assertion"]
                .as_str()
                .unwrap()
                .as_bytes()
                .to_vec(),
            signature: signature.to_vec(),
        });
    }
    assert_eq!(out.len(), 3, "expected the three 4-S vectors");
    out
}

fn verifies(case: &Case, message: &[u8]) -> bool {
    UnparsedPublicKey::new(&ED25519, &case.public_key)
        .verify(message, &case.signature)
        .is_ok()
}

fn pieces(case: &Case) -> [&[u8]; 4] {
    [&case.header, &case.payload, &case.footer, &case.implicit]
}

#[test]
fn signature_verifies_over_our_pae() {
    for case in cases() {
        let bytes = pae(&pieces(&case));
        assert!(verifies(&case, &bytes), "{}", case.name);
        assert_eq!(unpae(&bytes).unwrap(), pieces(&case).to_vec());
    }
}

#[test]
fn flipping_one_bit_of_any_piece_fails() {
    for case in cases() {
        for which in 0..4 {
            let mut parts: Vec<Vec<u8>> = pieces(&case).iter().map(|p| p.to_vec()).collect();
            if parts[which].is_empty() {
                parts[which].push(0);
            } else {
                parts[which][0] ^= 1;
            }
            let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
            assert!(!verifies(&case, &pae(&refs)), "{} piece {which}", case.name);
        }
    }
}

#[test]
fn moving_a_byte_across_a_piece_boundary_fails() {
    for case in cases() {
        for boundary in 0..3 {
            let mut parts: Vec<Vec<u8>> = pieces(&case).iter().map(|p| p.to_vec()).collect();
            // Move the last byte of the piece before the boundary to the front of the next one.
            if let Some(byte) = parts[boundary].pop() {
                parts[boundary + 1].insert(0, byte);
                let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
                assert_eq!(
                    refs.concat(),
                    pieces(&case).concat(),
                    "the concatenation is unchanged"
                );
                assert!(
                    !verifies(&case, &pae(&refs)),
                    "{} boundary {boundary}",
                    case.name
                );
            }
        }
    }
}

#[test]
fn flipping_one_bit_of_the_signature_fails() {
    for mut case in cases() {
        let bytes = pae(&pieces(&case));
        case.signature[0] ^= 0x80;
        assert!(!verifies(&case, &bytes), "{}", case.name);
    }
}

#[test]
fn dropping_the_empty_implicit_piece_fails() {
    for case in cases() {
        let bytes = pae(&pieces(&case)[..3]);
        assert!(!verifies(&case, &bytes), "{}", case.name);
    }
}
