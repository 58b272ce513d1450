//! Authenticator data (WebAuthn §6.1): rpIdHash, flags, signCount, then the attested credential
//! data and extensions the flags announce. Read with one checked cursor.

use sha2::{Digest, Sha256};

use super::cbor::read_item;
use super::cose::parse_cose_key;
use super::key::ApproverPublicKey;
use super::refusal::WebAuthnRefusal;
use super::{Expected, MAX_CREDENTIAL_ID_BYTES};

/// Bytes of the fixed part: rpIdHash (32), flags (1), signCount (4).
pub const AUTHENTICATOR_DATA_MIN_BYTES: usize = 37;

/// Flag UP: the user was present.
pub const FLAG_USER_PRESENT: u8 = 0x01;
/// Flag UV: the user was verified (PIN, biometric).
pub const FLAG_USER_VERIFIED: u8 = 0x04;
/// Flag AT: attested credential data follows the fixed part.
pub const FLAG_ATTESTED_CREDENTIAL: u8 = 0x40;
/// Flag ED: an extensions map ends the data.
pub const FLAG_EXTENSIONS: u8 = 0x80;

/// Bytes of the AAGUID.
const AAGUID_BYTES: usize = 16;

/// The credential an enrolment's authenticator data attests.
#[derive(Debug)]
pub(super) struct AttestedCredential {
    pub(super) credential_id: Vec<u8>,
    pub(super) public_key: ApproverPublicKey,
    pub(super) sign_count: u32,
}

/// Checks the fixed part and the flags of an assertion's authenticator data and returns its
/// signCount. Order: truncated, rpIdHash, UP, UV, then the rest (no attested credential data,
/// one extensions map exactly when ED is set, nothing else).
pub(super) fn check_assertion_data(
    bytes: &[u8],
    expected: &Expected<'_>,
) -> Result<u32, WebAuthnRefusal> {
    let (flags, sign_count, rest) = check_fixed(bytes, expected)?;
    if flags & FLAG_ATTESTED_CREDENTIAL != 0 {
        return Err(WebAuthnRefusal::AuthenticatorDataMalformed);
    }
    check_extensions(flags, rest)?;
    Ok(sign_count)
}

/// Reads an enrolment's authenticator data: the fixed part and flags as for an assertion, then
/// AT set (`attested-credential-missing`), the AAGUID and credential id length
/// (`authenticator-data-truncated`), the id's length (`credential-id-length`) and bytes
/// (`authenticator-data-truncated`), the COSE key, then the extensions as the flags announce.
pub(super) fn parse_registration_data(
    bytes: &[u8],
    expected: &Expected<'_>,
) -> Result<AttestedCredential, WebAuthnRefusal> {
    let (flags, sign_count, rest) = check_fixed(bytes, expected)?;
    if flags & FLAG_ATTESTED_CREDENTIAL == 0 {
        return Err(WebAuthnRefusal::AttestedCredentialMissing);
    }
    let mut cursor = Cursor { rest };
    cursor.take(AAGUID_BYTES)?;
    let length = usize::from(u16::from_be_bytes(cursor.array()?));
    if length == 0 || length > MAX_CREDENTIAL_ID_BYTES {
        return Err(WebAuthnRefusal::CredentialIdLength);
    }
    let credential_id = cursor.take(length)?.to_vec();
    let mut rest = cursor.rest;
    if rest.is_empty() {
        return Err(WebAuthnRefusal::AuthenticatorDataTruncated);
    }
    let key = read_item(&mut rest).ok_or(WebAuthnRefusal::CoseKeyMalformed)?;
    let public_key = parse_cose_key(&key)?;
    check_extensions(flags, rest)?;
    Ok(AttestedCredential {
        credential_id,
        public_key,
        sign_count,
    })
}

/// The fixed part: length, rpIdHash, UP, UV. Returns the flags, the signCount and the rest.
fn check_fixed<'b>(
    bytes: &'b [u8],
    expected: &Expected<'_>,
) -> Result<(u8, u32, &'b [u8]), WebAuthnRefusal> {
    let mut cursor = Cursor { rest: bytes };
    let rp_id_hash: [u8; 32] = cursor.array()?;
    let [flags] = cursor.array()?;
    let sign_count = u32::from_be_bytes(cursor.array()?);
    if rp_id_hash != <[u8; 32]>::from(Sha256::digest(expected.rp_id.as_bytes())) {
        return Err(WebAuthnRefusal::RpIdMismatch);
    }
    if flags & FLAG_USER_PRESENT == 0 {
        return Err(WebAuthnRefusal::UserNotPresent);
    }
    if flags & FLAG_USER_VERIFIED == 0 {
        return Err(WebAuthnRefusal::UserNotVerified);
    }
    Ok((flags, sign_count, cursor.rest))
}

/// With ED set, `rest` is exactly one CBOR map; without it, `rest` is empty.
fn check_extensions(flags: u8, rest: &[u8]) -> Result<(), WebAuthnRefusal> {
    if flags & FLAG_EXTENSIONS == 0 {
        return if rest.is_empty() {
            Ok(())
        } else {
            Err(WebAuthnRefusal::AuthenticatorDataMalformed)
        };
    }
    let mut rest = rest;
    let extensions = read_item(&mut rest).ok_or(WebAuthnRefusal::AuthenticatorDataMalformed)?;
    if extensions.is_map() && rest.is_empty() {
        Ok(())
    } else {
        Err(WebAuthnRefusal::AuthenticatorDataMalformed)
    }
}

/// The checked cursor: every read is bounds-checked, running out is
/// `authenticator-data-truncated`.
struct Cursor<'b> {
    rest: &'b [u8],
}

impl<'b> Cursor<'b> {
    fn take(&mut self, count: usize) -> Result<&'b [u8], WebAuthnRefusal> {
        let (head, tail) = self
            .rest
            .split_at_checked(count)
            .ok_or(WebAuthnRefusal::AuthenticatorDataTruncated)?;
        self.rest = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], WebAuthnRefusal> {
        self.take(N)?
            .try_into()
            .map_err(|_| WebAuthnRefusal::AuthenticatorDataTruncated)
    }
}
