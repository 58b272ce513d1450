//! Published test vectors transcribed from their RFCs, each with negative twins: one-bit flips
//! of message, tag and key; truncated and extended tags; a wrong key; the wrong algorithm.

use seal_verify::{
    Ed25519PublicKey, Ed25519SigningKey, HmacKey, HmacSecret, SignatureError, TagLength,
    VerifyingKey,
};

struct HmacCase {
    name: &'static str,
    key: Vec<u8>,
    data: Vec<u8>,
    tag_hex: &'static str,
}

/// RFC 4231 section 4.2..4.8 (test cases 1 to 7), HMAC-SHA-256 values. Case 5 (section 4.6)
/// publishes the output truncated to 128 bits.
fn rfc4231() -> Vec<HmacCase> {
    vec![
        // RFC 4231 section 4.2, test case 1.
        HmacCase {
            name: "rfc4231 case 1",
            key: vec![0x0b; 20],
            data: b"Hi There".to_vec(),
            tag_hex: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
        },
        // RFC 4231 section 4.3, test case 2: a key shorter than the output.
        HmacCase {
            name: "rfc4231 case 2",
            key: b"Jefe".to_vec(),
            data: b"what do ya want for nothing?".to_vec(),
            tag_hex: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
        },
        // RFC 4231 section 4.4, test case 3.
        HmacCase {
            name: "rfc4231 case 3",
            key: vec![0xaa; 20],
            data: vec![0xdd; 50],
            tag_hex: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
        },
        // RFC 4231 section 4.5, test case 4: key 0x01..=0x19.
        HmacCase {
            name: "rfc4231 case 4",
            key: (1..=25).collect(),
            data: vec![0xcd; 50],
            tag_hex: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
        },
        // RFC 4231 section 4.6, test case 5: output truncated to 128 bits.
        HmacCase {
            name: "rfc4231 case 5",
            key: vec![0x0c; 20],
            data: b"Test With Truncation".to_vec(),
            tag_hex: "a3b6167473100ee06e0c796c2955552b",
        },
        // RFC 4231 section 4.7, test case 6: a key larger than the block size.
        HmacCase {
            name: "rfc4231 case 6",
            key: vec![0xaa; 131],
            data: b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
            tag_hex: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
        },
        // RFC 4231 section 4.8, test case 7: key and data larger than the block size.
        HmacCase {
            name: "rfc4231 case 7",
            key: vec![0xaa; 131],
            data: b"This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".to_vec(),
            tag_hex: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
        },
    ]
}

struct EdCase {
    name: &'static str,
    secret: &'static str,
    public: &'static str,
    message: Vec<u8>,
    signature: &'static str,
}

/// RFC 8032 section 7.1 (Ed25519): TEST 1, TEST 2, TEST 3, TEST 1024 and TEST SHA(abc).
fn rfc8032() -> Vec<EdCase> {
    vec![
        // RFC 8032 section 7.1, TEST 1 (empty message).
        EdCase {
            name: "rfc8032 test 1",
            secret: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            public: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
            message: Vec::new(),
            signature: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
        },
        // RFC 8032 section 7.1, TEST 2 (one byte).
        EdCase {
            name: "rfc8032 test 2",
            secret: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            public: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
            message: vec![0x72],
            signature: "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
        },
        // RFC 8032 section 7.1, TEST 3 (two bytes).
        EdCase {
            name: "rfc8032 test 3",
            secret: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
            public: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
            message: vec![0xaf, 0x82],
            signature: "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
        },
        // RFC 8032 section 7.1, TEST 1024 (a 1023-byte message).
        EdCase {
            name: "rfc8032 test 1024",
            secret: "f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5",
            public: "278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e",
            message: hex::decode(TEST_1024_MESSAGE).unwrap(),
            signature: "0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350aa5371b1508f9f4528ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03",
        },
        // RFC 8032 section 7.1, TEST SHA(abc): the message is SHA-512("abc").
        EdCase {
            name: "rfc8032 test sha(abc)",
            secret: "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
            public: "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
            message: hex::decode("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f").unwrap(),
            signature: "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704",
        },
    ]
}

/// RFC 8032 section 7.1, TEST 1024: the 1023-byte message.
const TEST_1024_MESSAGE: &str = concat!(
    "08b8b2b733424243760fe426a4b54908",
    "632110a66c2f6591eabd3345e3e4eb98",
    "fa6e264bf09efe12ee50f8f54e9f77b1",
    "e355f6c50544e23fb1433ddf73be84d8",
    "79de7c0046dc4996d9e773f4bc9efe57",
    "38829adb26c81b37c93a1b270b20329d",
    "658675fc6ea534e0810a4432826bf58c",
    "941efb65d57a338bbd2e26640f89ffbc",
    "1a858efcb8550ee3a5e1998bd177e93a",
    "7363c344fe6b199ee5d02e82d522c4fe",
    "ba15452f80288a821a579116ec6dad2b",
    "3b310da903401aa62100ab5d1a36553e",
    "06203b33890cc9b832f79ef80560ccb9",
    "a39ce767967ed628c6ad573cb116dbef",
    "efd75499da96bd68a8a97b928a8bbc10",
    "3b6621fcde2beca1231d206be6cd9ec7",
    "aff6f6c94fcd7204ed3455c68c83f4a4",
    "1da4af2b74ef5c53f1d8ac70bdcb7ed1",
    "85ce81bd84359d44254d95629e9855a9",
    "4a7c1958d1f8ada5d0532ed8a5aa3fb2",
    "d17ba70eb6248e594e1a2297acbbb39d",
    "502f1a8c6eb6f1ce22b3de1a1f40cc24",
    "554119a831a9aad6079cad88425de6bd",
    "e1a9187ebb6092cf67bf2b13fd65f270",
    "88d78b7e883c8759d2c4f5c65adb7553",
    "878ad575f9fad878e80a0c9ba63bcbcc",
    "2732e69485bbc9c90bfbd62481d9089b",
    "eccf80cfe2df16a2cf65bd92dd597b07",
    "07e0917af48bbb75fed413d238f5555a",
    "7a569d80c3414a8d0859dc65a46128ba",
    "b27af87a71314f318c782b23ebfe808b",
    "82b0ce26401d2e22f04d83d1255dc51a",
    "ddd3b75a2b1ae0784504df543af8969b",
    "e3ea7082ff7fc9888c144da2af58429e",
    "c96031dbcad3dad9af0dcbaaaf268cb8",
    "fcffead94f3c7ca495e056a9b47acdb7",
    "51fb73e666c6c655ade8297297d07ad1",
    "ba5e43f1bca32301651339e22904cc8c",
    "42f58c30c04aafdb038dda0847dd988d",
    "cda6f3bfd15c4b4c4525004aa06eeff8",
    "ca61783aacec57fb3d1f92b0fe2fd1a8",
    "5f6724517b65e614ad6808d6f6ee34df",
    "f7310fdc82aebfd904b01e1dc54b2927",
    "094b2db68d6f903b68401adebf5a7e08",
    "d78ff4ef5d63653a65040cf9bfd4aca7",
    "984a74d37145986780fc0b16ac451649",
    "de6188a7dbdf191f64b5fc5e2ab47b57",
    "f7f7276cd419c17a3ca8e1b939ae49e4",
    "88acba6b965610b5480109c8b17b80e1",
    "b7b750dfc7598d5d5011fd2dcc5600a3",
    "2ef5b52a1ecc820e308aa342721aac09",
    "43bf6686b64b2579376504ccc493d97e",
    "6aed3fb0f9cd71a43dd497f01f17c0e2",
    "cb3797aa2a2f256656168e6c496afc5f",
    "b93246f6b1116398a346f1a641f3b041",
    "e989f7914f90cc2c7fff357876e506b5",
    "0d334ba77c225bc307ba537152f3f161",
    "0e4eafe595f6d9d90d11faa933a15ef1",
    "369546868a7f3a45a96768d40fd9d034",
    "12c091c6315cf4fde7cb68606937380d",
    "b2eaaa707b4c4185c32eddcdd306705e",
    "4dc1ffc872eeee475a64dfac86aba41c",
    "0618983f8741c5ef68d3a101e8a3b8ca",
    "c60c905c15fc910840b94c00a0b9d0",
);

fn flip(bytes: &[u8], bit: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if out.is_empty() {
        out.push(0);
    }
    let index = (bit / 8) % out.len();
    out[index] ^= 1 << (bit % 8);
    out
}

fn hmac_key(key: &[u8], bits: u16) -> HmacKey {
    HmacKey::new(
        HmacSecret::from_bytes(key).unwrap(),
        TagLength::from_bits(bits).unwrap(),
    )
}

#[test]
fn rfc4231_cases_verify_and_sign() {
    for case in rfc4231() {
        let tag = hex::decode(case.tag_hex).unwrap();
        let bits = u16::try_from(tag.len() * 8).unwrap();
        let key = hmac_key(&case.key, bits);
        assert_eq!(key.verify(&case.data, &tag), Ok(()), "{}", case.name);
        assert_eq!(
            key.sign(&case.data).as_bytes(),
            tag.as_slice(),
            "{}",
            case.name
        );
        let text = key.sign(&case.data).to_text();
        assert_eq!(key.verify_text(&case.data, &text), Ok(()), "{}", case.name);
        let wrapped = VerifyingKey::Hmac(hmac_key(&case.key, bits));
        assert_eq!(wrapped.verify(&case.data, &tag), Ok(()), "{}", case.name);
    }
}

#[test]
fn rfc4231_negative_twins() {
    let cases = rfc4231();
    for (index, case) in cases.iter().enumerate() {
        let tag = hex::decode(case.tag_hex).unwrap();
        let bits = u16::try_from(tag.len() * 8).unwrap();
        let key = hmac_key(&case.key, bits);
        let name = case.name;
        for bit in [0, 7, 13, 8 * case.data.len().max(1) - 1] {
            assert_eq!(
                key.verify(&flip(&case.data, bit), &tag),
                Err(SignatureError::Mismatch),
                "{name}: message bit {bit}"
            );
        }
        for bit in 0..tag.len() * 8 {
            assert_eq!(
                key.verify(&case.data, &flip(&tag, bit)),
                Err(SignatureError::Mismatch),
                "{name}: tag bit {bit}"
            );
        }
        for bit in [0, 5, 8 * case.key.len() - 1] {
            let flipped = hmac_key(&flip(&case.key, bit), bits);
            assert_eq!(
                flipped.verify(&case.data, &tag),
                Err(SignatureError::Mismatch),
                "{name}: key bit {bit}"
            );
        }
        let truncated = &tag[..tag.len() - 1];
        assert_eq!(
            key.verify(&case.data, truncated),
            Err(SignatureError::Length {
                expected: tag.len(),
                found: tag.len() - 1
            }),
            "{name}: truncated"
        );
        let mut extended = tag.clone();
        extended.push(0);
        assert!(
            matches!(
                key.verify(&case.data, &extended),
                Err(SignatureError::Length { .. })
            ),
            "{name}: extended"
        );
        assert!(
            matches!(
                key.verify(&case.data, &[]),
                Err(SignatureError::Length { .. })
            ),
            "{name}: empty"
        );
        // The text form: one character short or long is refused on length.
        let text = key.sign(&case.data).to_text();
        assert!(matches!(
            key.verify_text(&case.data, &text[..text.len() - 1]),
            Err(SignatureError::Length { .. })
        ));
        assert!(matches!(
            key.verify_text(&case.data, &format!("{text}A")),
            Err(SignatureError::Length { .. })
        ));
        // A wrong key: the next case's key.
        let other = &cases[(index + 1) % cases.len()];
        if other.key != case.key {
            assert_eq!(
                hmac_key(&other.key, bits).verify(&case.data, &tag),
                Err(SignatureError::Mismatch),
                "{name}: wrong key"
            );
        }
        // The wrong algorithm: the tag presented to an Ed25519 key fails on length, and a
        // 64-byte value made of the tag twice fails Ed25519 verification.
        let ed = VerifyingKey::Ed25519(
            Ed25519PublicKey::from_bytes(&hex::decode(rfc8032()[0].public).unwrap()).unwrap(),
        );
        assert!(matches!(
            ed.verify(&case.data, &tag),
            Err(SignatureError::Length { .. })
        ));
        let doubled: Vec<u8> = tag
            .iter()
            .chain(tag.iter())
            .copied()
            .cycle()
            .take(64)
            .collect();
        assert_eq!(
            ed.verify(&case.data, &doubled),
            Err(SignatureError::Mismatch)
        );
    }
}

#[test]
fn rfc8032_cases_verify_and_sign() {
    for case in rfc8032() {
        let signing = Ed25519SigningKey::from_seed(&hex::decode(case.secret).unwrap()).unwrap();
        let public = Ed25519PublicKey::from_bytes(&hex::decode(case.public).unwrap()).unwrap();
        assert_eq!(
            signing.public_key().as_bytes(),
            public.as_bytes(),
            "{}",
            case.name
        );
        let signature = hex::decode(case.signature).unwrap();
        assert_eq!(
            public.verify(&case.message, &signature),
            Ok(()),
            "{}",
            case.name
        );
        assert_eq!(
            signing.sign(&case.message).as_bytes(),
            signature.as_slice(),
            "{}",
            case.name
        );
        let text = signing.sign(&case.message).to_text();
        assert_eq!(text.len(), 86);
        assert_eq!(
            public.verify_text(&case.message, &text),
            Ok(()),
            "{}",
            case.name
        );
    }
}

#[test]
fn rfc8032_negative_twins() {
    let cases = rfc8032();
    for (index, case) in cases.iter().enumerate() {
        let name = case.name;
        let public_bytes = hex::decode(case.public).unwrap();
        let public = Ed25519PublicKey::from_bytes(&public_bytes).unwrap();
        let signature = hex::decode(case.signature).unwrap();
        for bit in [0, 3, 8 * case.message.len().max(1) - 1] {
            assert_eq!(
                public.verify(&flip(&case.message, bit), &signature),
                Err(SignatureError::Mismatch),
                "{name}: message bit {bit}"
            );
        }
        for bit in (0..512).step_by(7) {
            assert_eq!(
                public.verify(&case.message, &flip(&signature, bit)),
                Err(SignatureError::Mismatch),
                "{name}: signature bit {bit}"
            );
        }
        for bit in [0, 100, 254] {
            let flipped = Ed25519PublicKey::from_bytes(&flip(&public_bytes, bit)).unwrap();
            assert_eq!(
                flipped.verify(&case.message, &signature),
                Err(SignatureError::Mismatch),
                "{name}: key bit {bit}"
            );
        }
        assert_eq!(
            public.verify(&case.message, &signature[..63]),
            Err(SignatureError::Length {
                expected: 64,
                found: 63
            })
        );
        let mut extended = signature.clone();
        extended.push(0);
        assert!(matches!(
            public.verify(&case.message, &extended),
            Err(SignatureError::Length { .. })
        ));
        let text = seal_verify::base64url::encode(&signature);
        assert!(matches!(
            public.verify_text(&case.message, &text[..85]),
            Err(SignatureError::Length { .. })
        ));
        let other = &cases[(index + 1) % cases.len()];
        let wrong = Ed25519PublicKey::from_bytes(&hex::decode(other.public).unwrap()).unwrap();
        assert_eq!(
            wrong.verify(&case.message, &signature),
            Err(SignatureError::Mismatch),
            "{name}: wrong key"
        );
        // The wrong algorithm: the same 32 bytes as an HMAC secret. The signature is refused on
        // length, and the HMAC tag of the message is refused by the Ed25519 key.
        let hmac = hmac_key(&public_bytes, 256);
        assert!(matches!(
            hmac.verify(&case.message, &signature),
            Err(SignatureError::Length { .. })
        ));
        let tag = hmac.sign(&case.message);
        assert!(matches!(
            public.verify(&case.message, tag.as_bytes()),
            Err(SignatureError::Length { .. })
        ));
    }
}
