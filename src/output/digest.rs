//! SHA-256 digests in lowercase hex: the manifest's, the memo's and push's journal hashes.

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes` in lowercase hex, as the manifest writes it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes).into())
}

/// A 32-byte digest in lowercase hex.
pub fn hex(digest: &[u8; 32]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_digest() {
        // FIPS 180-2, appendix B.1: SHA-256("abc").
        assert_eq!(
            super::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
