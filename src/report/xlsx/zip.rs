//! The zip container of the workbook (PKWARE APPNOTE.TXT 6.3.10: local file headers, central
//! directory, end of central directory; deflate, no zip64, fixed 1980-01-01 timestamps so the
//! same spec gives the same bytes).
//!
//! A large part is compressed in pieces on several cores, as pigz does: each piece is a raw
//! deflate stream ended with a sync flush (byte-aligned, no final block), the pieces are
//! concatenated and one empty final block closes the entry; the CRC-32s of the pieces combine.

use crc32fast::Hasher;
use flate2::{Compress, Compression, FlushCompress};

/// Compression level 2: about a tenth larger than zlib's default 6, in half the time.
const LEVEL: u32 = 2;
/// An empty final block with fixed Huffman codes (BFINAL=1, BTYPE=01, end-of-block).
const FINAL_BLOCK: [u8; 2] = [0x03, 0x00];

/// A compressed piece of an entry.
pub(super) struct Piece {
    data: Vec<u8>,
    crc: Hasher,
    len: u64,
}

/// Why the archive could not be written: a size beyond what a zip without zip64 records, or a
/// failure of the deflate stream.
#[derive(Debug)]
pub(crate) enum ZipError {
    TooLarge,
    Deflate(String),
}

impl std::fmt::Display for ZipError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooLarge => write!(
                f,
                "the workbook exceeds what a zip without zip64 holds (4 GiB)"
            ),
            Self::Deflate(e) => write!(f, "deflate of a workbook part failed: {e}"),
        }
    }
}

impl Piece {
    pub fn deflate(bytes: &[u8]) -> Result<Self, ZipError> {
        let mut crc = Hasher::new();
        crc.update(bytes);
        let mut c = Compress::new(Compression::new(LEVEL), false);
        let mut data = Vec::with_capacity(bytes.len() / 8 + 64);
        let mut input = bytes;
        loop {
            if data.capacity() - data.len() < 64 {
                data.reserve(data.capacity().max(4096));
            }
            let before = c.total_in();
            // A sync flush is done when the call returns with output space to spare. An error
            // means a misused stream (this function owns it from start to end), not bad input.
            c.compress_vec(input, &mut data, FlushCompress::Sync)
                .map_err(|e| ZipError::Deflate(e.to_string()))?;
            let used = usize::try_from(c.total_in() - before).unwrap_or(input.len());
            input = &input[used.min(input.len())..];
            if input.is_empty() && data.len() < data.capacity() {
                break;
            }
        }
        Ok(Self {
            data,
            crc,
            len: bytes.len() as u64,
        })
    }
}

/// One file of the archive.
pub(super) struct Entry {
    name: String,
    data: Vec<u8>,
    crc: u32,
    len: u64,
}

impl Entry {
    pub fn new(name: impl Into<String>, bytes: &[u8]) -> Result<Self, ZipError> {
        Ok(Self::join(name, vec![Piece::deflate(bytes)?]))
    }

    /// The entry whose content is the pieces' content in order.
    pub fn join(name: impl Into<String>, pieces: Vec<Piece>) -> Self {
        let mut crc = Hasher::new();
        let mut data = Vec::with_capacity(pieces.iter().map(|p| p.data.len()).sum::<usize>() + 2);
        let mut len = 0;
        for p in pieces {
            crc.combine(&p.crc);
            data.extend_from_slice(&p.data);
            len += p.len;
        }
        data.extend_from_slice(&FINAL_BLOCK);
        Self {
            name: name.into(),
            data,
            crc: crc.finalize(),
            len,
        }
    }
}

fn u32_of(n: impl TryInto<u32>) -> Result<u32, ZipError> {
    n.try_into().map_err(|_| ZipError::TooLarge)
}

fn u16_of(n: usize) -> Result<u16, ZipError> {
    u16::try_from(n).map_err(|_| ZipError::TooLarge)
}

/// The archive of `entries`, in order.
pub(super) fn archive(entries: &[Entry]) -> Result<Vec<u8>, ZipError> {
    // Version 2.0 (deflate), no flags, deflate, 00:00:00 of 1980-01-01 (MS-DOS date 0x0021).
    const VERSION: u16 = 20;
    const DEFLATE: u16 = 8;
    const DOS_DATE: u16 = 0x0021;
    let total: usize = entries
        .iter()
        .map(|e| e.data.len() + 30 + e.name.len())
        .sum();
    let mut out = Vec::with_capacity(total + entries.len() * 46 + 22);
    let mut central = Vec::with_capacity(entries.len() * 80);
    for e in entries {
        let offset = u32_of(out.len())?;
        let (csize, usize_, name_len) =
            (u32_of(e.data.len())?, u32_of(e.len)?, u16_of(e.name.len())?);
        let fields = |v: &mut Vec<u8>| {
            for x in [VERSION, 0, DEFLATE, 0, DOS_DATE] {
                v.extend_from_slice(&x.to_le_bytes());
            }
            for x in [e.crc, csize, usize_] {
                v.extend_from_slice(&x.to_le_bytes());
            }
            v.extend_from_slice(&name_len.to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes());
        };
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        fields(&mut out);
        out.extend_from_slice(e.name.as_bytes());
        out.extend_from_slice(&e.data);

        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&VERSION.to_le_bytes());
        fields(&mut central);
        // Comment length, disk, internal and external attributes, then the offset.
        central.extend_from_slice(&[0; 10]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(e.name.as_bytes());
    }
    let (start, size, count) = (
        u32_of(out.len())?,
        u32_of(central.len())?,
        u16_of(entries.len())?,
    );
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    for x in [count, count] {
        out.extend_from_slice(&x.to_le_bytes());
    }
    for x in [size, start] {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.extend_from_slice(&0u16.to_le_bytes());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// Pieces compressed apart inflate, joined, to their content in order, with its CRC-32.
    #[test]
    fn joined_pieces_are_one_deflate_stream() {
        let parts: Vec<Vec<u8>> = (0..5u8)
            .map(|i| {
                (0..20_000u32)
                    .flat_map(|n| [i, (n % 251) as u8, b'x'])
                    .collect()
            })
            .collect();
        let whole = parts.concat();
        let e = Entry::join(
            "a",
            parts.iter().map(|p| Piece::deflate(p).unwrap()).collect(),
        );
        let mut back = Vec::new();
        flate2::read::DeflateDecoder::new(&e.data[..])
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, whole);
        assert_eq!(e.crc, crc32fast::hash(&whole));
        assert_eq!(e.len, whole.len() as u64);
        let empty = Entry::new("e", b"").unwrap();
        let mut back = Vec::new();
        flate2::read::DeflateDecoder::new(&empty.data[..])
            .read_to_end(&mut back)
            .unwrap();
        assert!(back.is_empty());
    }
}
