//! Keys, secrets, tag profiles, subkeys and the base64url codec.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use seal_verify::base64url::{self, Base64Error};
use seal_verify::{
    CompensatingControls, Ed25519SigningKey, HmacKey, HmacSecret, KeyError, SignatureError,
    SubkeyError, TagConfig, TagLength, TagLengthError, TagProfile, MAX_SECRET_BYTES,
};

const SECRET: [u8; 32] = [0x5a; 32];

fn standard_key() -> HmacKey {
    HmacKey::new(
        HmacSecret::from_bytes(&SECRET).unwrap(),
        TagLength::STANDARD,
    )
}

#[test]
fn secrets_redact_themselves_in_debug() {
    let secret = HmacSecret::from_bytes(b"hunter2-hunter2-hunter2").unwrap();
    let shown = format!("{secret:?} {:?}", standard_key());
    assert!(shown.contains("<redacted>"), "{shown}");
    assert!(!shown.contains("hunter2"), "{shown}");
    assert!(!shown.contains("104, 117"), "no decimal bytes: {shown}");
    assert!(!shown.contains("5a5a"), "no hex bytes: {shown}");
    let key = format!("{:?}", standard_key());
    assert!(key.starts_with("HmacKey { secret: \"<redacted>\""), "{key}");
    assert!(key.contains("tag_bits: 132"), "{key}");
    let seed = [0x11u8; 32];
    let signing = Ed25519SigningKey::from_seed(&seed).unwrap();
    let shown = format!("{signing:?}");
    assert!(shown.contains("<redacted>"), "{shown}");
    assert!(!shown.contains("1111"), "{shown}");
    assert!(!shown.contains("17, 17"), "{shown}");
}

#[test]
fn secret_bounds_are_named() {
    assert_eq!(
        HmacSecret::from_bytes(&[]).unwrap_err(),
        KeyError::EmptySecret
    );
    assert_eq!(
        HmacSecret::from_bytes(&vec![0; MAX_SECRET_BYTES + 1]).unwrap_err(),
        KeyError::SecretTooLong {
            len: MAX_SECRET_BYTES + 1,
            max: MAX_SECRET_BYTES
        }
    );
    assert!(HmacSecret::from_bytes(&vec![0; MAX_SECRET_BYTES]).is_ok());
    assert_eq!(
        Ed25519SigningKey::from_seed(&[0; 31]).unwrap_err(),
        KeyError::Ed25519Length { len: 31 }
    );
    assert_eq!(
        seal_verify::Ed25519PublicKey::from_bytes(&[0; 33]).unwrap_err(),
        KeyError::Ed25519Length { len: 33 }
    );
}

#[test]
fn profiles_have_their_documented_lengths() {
    let standard = TagConfig::default().tag_length().unwrap();
    assert_eq!(standard, TagLength::STANDARD);
    assert_eq!(
        (standard.bits(), standard.text_len(), standard.byte_len()),
        (132, 22, 17)
    );
    let on = CompensatingControls {
        per_conversation_subkeys: true,
        replay_set: true,
    };
    let compact = TagConfig {
        profile: TagProfile::Compact,
        controls: on,
    }
    .tag_length()
    .unwrap();
    assert_eq!(
        (compact.bits(), compact.text_len(), compact.byte_len()),
        (30, 5, 4)
    );
    assert!(compact.is_compact());
    assert_eq!(TagLength::FULL.text_len(), 43);
    assert_eq!(TagLength::from_chars(16).unwrap().bits(), 96);
    assert_eq!(TagLength::from_chars(42).unwrap().bits(), 252);
}

#[test]
fn compact_is_refused_without_both_controls() {
    for (subkeys, replay, expected) in [
        (false, false, TagLengthError::CompactWithoutSubkeys),
        (false, true, TagLengthError::CompactWithoutSubkeys),
        (true, false, TagLengthError::CompactWithoutReplaySet),
    ] {
        let config = TagConfig {
            profile: TagProfile::Compact,
            controls: CompensatingControls {
                per_conversation_subkeys: subkeys,
                replay_set: replay,
            },
        };
        assert_eq!(config.tag_length(), Err(expected));
    }
}

#[test]
fn lengths_below_the_floor_or_above_the_maximum_are_refused() {
    for bits in [0, 1, 30, 64, 95] {
        assert_eq!(
            TagLength::from_bits(bits),
            Err(TagLengthError::BelowFloor { bits, floor: 96 })
        );
    }
    assert_eq!(
        TagLength::from_bits(257),
        Err(TagLengthError::AboveMaximum {
            bits: 257,
            max: 256
        })
    );
    assert_eq!(
        TagLength::from_chars(5),
        Err(TagLengthError::BelowFloor {
            bits: 30,
            floor: 96
        })
    );
    assert!(matches!(
        TagLength::from_chars(15),
        Err(TagLengthError::BelowFloor { .. })
    ));
    assert!(matches!(
        TagLength::from_chars(43),
        Err(TagLengthError::AboveMaximum { .. })
    ));
    let config = TagConfig {
        profile: TagProfile::Bits(64),
        controls: CompensatingControls::default(),
    };
    assert!(matches!(
        config.tag_length(),
        Err(TagLengthError::BelowFloor { .. })
    ));
}

#[test]
fn standard_tag_is_the_first_132_bits_of_the_mac() {
    // 132 bits: the first 16 bytes of HMAC-SHA256 and the high nibble of the 17th; the text
    // form is the first 22 characters of the unpadded base64url of the full output.
    let key = standard_key();
    let full = HmacKey::new(HmacSecret::from_bytes(&SECRET).unwrap(), TagLength::FULL);
    let mac = full.sign(b"frame").to_text();
    let tag = key.sign(b"frame");
    assert_eq!(tag.to_text(), mac[..22]);
    assert_eq!(tag.as_bytes().len(), 17);
    assert_eq!(tag.as_bytes()[16] & 0x0f, 0);
    assert_eq!(&tag.as_bytes()[..16], &full.sign(b"frame").as_bytes()[..16]);
}

#[test]
fn binary_tags_with_padding_bits_set_are_refused() {
    let key = standard_key();
    let mut tag = key.sign(b"m").as_bytes().to_vec();
    tag[16] |= 0x01;
    assert_eq!(key.verify(b"m", &tag), Err(SignatureError::TrailingBits));
}

#[test]
fn non_canonical_text_tags_are_refused() {
    let key = HmacKey::new(
        HmacSecret::from_bytes(&SECRET).unwrap(),
        TagLength::from_bits(128).unwrap(),
    );
    let text = key.sign(b"m").to_text();
    assert_eq!(text.len(), 22);
    // The last character carries 2 tag bits and 4 padding bits: set a padding bit.
    let last = text.as_bytes()[21];
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let value = alphabet.iter().position(|c| *c == last).unwrap();
    let tweaked = format!("{}{}", &text[..21], char::from(alphabet[value | 1]));
    assert_eq!(
        key.verify_text(b"m", &tweaked),
        Err(SignatureError::Encoding(Base64Error::TrailingBits))
    );
    for bad in ["+", "/", "=", " ", "\u{e9}"] {
        let forged = format!("{}{bad}", &text[..22 - bad.len()]);
        assert!(
            matches!(
                key.verify_text(b"m", &forged),
                Err(SignatureError::Encoding(Base64Error::Alphabet { .. }))
            ),
            "{bad}"
        );
    }
}

#[test]
fn conversation_subkeys_separate_conversations() {
    let master = standard_key();
    let a = master.conversation_subkey("conv-a").unwrap();
    let b = master.conversation_subkey("conv-b").unwrap();
    let again = master.conversation_subkey("conv-a").unwrap();
    assert_eq!(a.tag_length(), TagLength::STANDARD);
    assert_eq!(a.fingerprint(), again.fingerprint());
    assert_ne!(a.fingerprint(), b.fingerprint());
    assert_ne!(a.fingerprint(), master.fingerprint());
    let sig = a.sign(b"frame").to_text();
    assert_eq!(again.verify_text(b"frame", &sig), Ok(()));
    assert_eq!(b.verify_text(b"frame", &sig), Err(SignatureError::Mismatch));
    assert_eq!(
        master.verify_text(b"frame", &sig),
        Err(SignatureError::Mismatch)
    );
    assert_eq!(
        master.conversation_subkey("").unwrap_err(),
        SubkeyError::EmptyConversationId
    );
    assert!(matches!(
        master.conversation_subkey(&"x".repeat(1025)),
        Err(SubkeyError::ConversationIdTooLong {
            len: 1025,
            max: 1024
        })
    ));
    // The longest accepted id is exactly the maximum, and a one-byte id is accepted.
    assert!(master.conversation_subkey(&"x".repeat(1024)).is_ok());
    assert!(master.conversation_subkey("x").is_ok());
}

#[test]
fn conversation_subkey_is_hkdf_sha256_with_the_documented_parameters() {
    // HKDF-SHA256 (RFC 5869) computed here from HMAC alone: PRK = HMAC(salt, IKM),
    // OKM = HMAC(PRK, info || 0x01) for 32 bytes of output.
    let salt = HmacKey::new(
        HmacSecret::from_bytes(b"seal/subkey/v1").unwrap(),
        TagLength::FULL,
    );
    let prk = salt.sign(&SECRET);
    let expand = HmacKey::new(
        HmacSecret::from_bytes(prk.as_bytes()).unwrap(),
        TagLength::FULL,
    );
    let mut info = b"conversation:conv-a".to_vec();
    info.push(1);
    let okm = expand.sign(&info);
    let expected = HmacSecret::from_bytes(okm.as_bytes())
        .unwrap()
        .fingerprint();
    let derived = standard_key().conversation_subkey("conv-a").unwrap();
    assert_eq!(derived.fingerprint(), expected);
}

fn bits_round_trip(
    bytes: &[u8],
    bits: usize,
    decode: fn(&str, usize) -> Result<Vec<u8>, Base64Error>,
) -> Result<(), TestCaseError> {
    let text = base64url::encode_bits(bytes, bits);
    prop_assert_eq!(text.len(), bits.div_ceil(6));
    let packed = decode(&text, bits).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(base64url::encode_bits(&packed, bits), text.clone());
    // Any other spelling of the same length is a different value or refused.
    let mut other = text.into_bytes();
    if let Some(last) = other.last_mut() {
        *last = if *last == b'A' { b'B' } else { b'A' };
        let other = String::from_utf8(other).unwrap();
        if let Ok(decoded) = decode(&other, bits) {
            prop_assert_ne!(decoded, packed);
        }
    }
    Ok(())
}

/// Negative control for the codec: a decoder that ignores padding bits accepts two spellings of
/// one value.
fn lenient_decode(text: &str, bits: usize) -> Result<Vec<u8>, Base64Error> {
    let mut out = base64url::decode_bits(text, text.len() * 6)?;
    out.truncate(bits.div_ceil(8));
    let spare = bits.div_ceil(8) * 8 - bits;
    if let Some(last) = out.last_mut() {
        *last &= 0xff << spare;
    }
    Ok(out)
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(512))]

    #[test]
    fn base64url_is_canonical(bytes in prop::collection::vec(any::<u8>(), 0..48), cut in 0usize..8) {
        let bits = (bytes.len() * 8).saturating_sub(cut);
        bits_round_trip(&bytes, bits, base64url::decode_bits)?;
        let text = base64url::encode(&bytes);
        prop_assert_eq!(base64url::decode(&text).unwrap(), bytes);
    }

    #[test]
    fn base64url_rejects_every_foreign_byte(text in "[A-Za-z0-9_-]{0,20}", at in any::<usize>(), byte in any::<u8>()) {
        prop_assume!(!byte.is_ascii_alphanumeric() && byte != b'-' && byte != b'_');
        let mut bytes = text.into_bytes();
        let at = at % (bytes.len() + 1);
        bytes.insert(at, byte);
        if let Ok(forged) = String::from_utf8(bytes) {
            prop_assert!(base64url::decode_bits(&forged, forged.len() * 6).is_err());
        }
    }
}

#[test]
fn base64url_negative_control_lenient_padding_is_caught() {
    let mut runner = seal_test_support::seeded(512);
    let strategy = (prop::collection::vec(any::<u8>(), 1..48), 1usize..8);
    let result = runner.run(&strategy, |(bytes, cut)| {
        bits_round_trip(
            &bytes,
            bytes.len() * 8 - cut.min(bytes.len() * 8 - 1).min(5),
            lenient_decode,
        )
    });
    assert!(
        result.is_err(),
        "a decoder that ignores padding bits must be caught"
    );
}
