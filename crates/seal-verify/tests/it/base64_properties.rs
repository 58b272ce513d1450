//! The bit-string base64url decoder agrees with a bit-by-bit model of section 3 of
//! spec/trust-store.md on every text of every length (accepted bytes and refusal alike), and
//! re-encodes what it accepts to the same text. A model that ignores padding bits is caught.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use seal_verify::base64url::{self, Base64Error};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Section 3 read literally: character by character, bit by bit.
fn model(text: &str, bits: usize, check_padding: bool) -> Result<Vec<u8>, Base64Error> {
    let expected = bits.div_ceil(6);
    if text.len() != expected {
        return Err(Base64Error::Length {
            expected,
            found: text.len(),
        });
    }
    let mut out = vec![0u8; bits.div_ceil(8)];
    for (index, byte) in text.bytes().enumerate() {
        let Some(value) = ALPHABET.iter().position(|&symbol| symbol == byte) else {
            return Err(Base64Error::Alphabet {
                offset: index,
                found: byte,
            });
        };
        for bit in 0..6 {
            let position = index * 6 + bit;
            if value & (0x20 >> bit) == 0 {
                continue;
            }
            if position >= bits {
                if check_padding {
                    return Err(Base64Error::TrailingBits);
                }
                continue;
            }
            out[position / 8] |= 0x80 >> (position % 8);
        }
    }
    Ok(out)
}

/// A bit count and a text of mostly the right length, mostly from the alphabet.
fn case() -> impl Strategy<Value = (usize, String)> {
    (1usize..=300).prop_flat_map(|bits| {
        let len = bits.div_ceil(6);
        let symbol = prop_oneof![
            20 => (0usize..64).prop_map(|index| char::from(ALPHABET[index])),
            1 => prop::sample::select(vec!['=', '+', '/', ' ', 'é', '\0']),
        ];
        let length = prop_oneof![8 => Just(len), 1 => 0..len + 3];
        (
            Just(bits),
            length.prop_flat_map(move |length| {
                prop::collection::vec(symbol.clone(), length)
                    .prop_map(|chars| chars.into_iter().collect::<String>())
            }),
        )
    })
}

fn check(
    (bits, text): &(usize, String),
    model: fn(&str, usize) -> Result<Vec<u8>, Base64Error>,
) -> Result<(), TestCaseError> {
    let decoded = base64url::decode_bits(text, *bits);
    prop_assert_eq!(&decoded, &model(text, *bits));
    if let Ok(bytes) = decoded {
        prop_assert_eq!(&base64url::encode_bits(&bytes, *bits), text);
    }
    Ok(())
}

fn strict(text: &str, bits: usize) -> Result<Vec<u8>, Base64Error> {
    model(text, bits, true)
}

fn lax(text: &str, bits: usize) -> Result<Vec<u8>, Base64Error> {
    model(text, bits, false)
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(2000))]

    #[test]
    fn decode_bits_is_the_bitwise_model(case in case()) {
        check(&case, strict)?;
    }
}

#[test]
fn negative_control_a_model_that_ignores_padding_bits_is_caught() {
    let mut runner = seal_test_support::seeded(2000);
    let result = runner.run(&case(), |case| check(&case, lax));
    assert!(
        result.is_err(),
        "the lax model must disagree with the strict decoder somewhere"
    );
}
