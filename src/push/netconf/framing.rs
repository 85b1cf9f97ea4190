//! RFC 6242 message framing, as a pure and incremental codec.
//!
//! Input: bytes as they arrive from the transport, in pieces of any size. Output: whole NETCONF
//! messages (raw bytes; XML is decoded once, after reassembly, because a chunk boundary may split
//! a UTF-8 sequence). Two framings exist:
//!
//! * **end-of-message** (`base:1.0`, and always for `<hello>`): the message, then `]]>]]>`;
//! * **chunked** (`base:1.1`, RFC 6242 §4.2): chunks `LF # size LF data`, ended by `LF ## LF`.
//!
//! The framing can change between two messages (after the hellos), so the decoder hands out one
//! message at a time ([`Decoder::next_message`]) and the caller switches framing in between; bytes
//! already buffered are then read with the new framing.
//!
//! Invariants: the codec never panics on any input; a framing error is sticky (RFC 6242 says the
//! session must be closed); messages are capped in size so a hostile peer cannot exhaust memory,
//! while multi-megabyte `get-config` replies stay well within the default cap.

use std::fmt;

/// The end-of-message marker of `base:1.0` framing.
pub const EOM: &[u8] = b"]]>]]>";

/// Largest chunk size the grammar allows (RFC 6242 §4.2: `1..4294967295`).
pub const MAX_CHUNK_SIZE: u64 = 4_294_967_295;

/// Default cap on one reassembled message: far above any switch config, far below memory limits.
pub(crate) const DEFAULT_MAX_MESSAGE: usize = 256 * 1024 * 1024;

/// Default size of the chunks the encoder writes: large enough to be cheap, small enough that a
/// server with a small read buffer is never handed one giant chunk.
pub(crate) const DEFAULT_CHUNK: usize = 64 * 1024;

/// Which framing a message uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// `base:1.0`: message followed by `]]>]]>`.
    EndOfMessage,
    /// `base:1.1`: chunked framing.
    Chunked,
}

/// Why a byte stream is not valid framing. Fatal for the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FramingError {
    /// A chunk header was not `LF # <size> LF` (the offending bytes, lossily decoded).
    BadChunkHeader(String),
    /// A chunk size of zero, with a leading zero, or above 4294967295.
    BadChunkSize(String),
    /// The message grew beyond the decoder's cap.
    TooLarge { limit: usize },
    /// An end-of-message framed message would contain the marker itself.
    MarkerInMessage,
    /// Chunked framing cannot carry an empty message (every chunk has at least one byte).
    EmptyMessage,
    /// An earlier error already poisoned this decoder.
    Poisoned,
}

impl fmt::Display for FramingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FramingError::BadChunkHeader(b) => write!(f, "malformed chunk header near {b:?}"),
            FramingError::BadChunkSize(s) => write!(f, "invalid chunk size {s:?}"),
            FramingError::TooLarge { limit } => {
                write!(f, "message larger than the {limit}-byte limit")
            }
            FramingError::MarkerInMessage => {
                write!(f, "message contains the end-of-message marker ]]>]]>")
            }
            FramingError::EmptyMessage => write!(f, "an empty message cannot be chunk-framed"),
            FramingError::Poisoned => write!(f, "framing decoder failed earlier"),
        }
    }
}

impl std::error::Error for FramingError {}

/// Encode one message with `framing`, chunked framing using chunks of at most [`DEFAULT_CHUNK`].
pub fn encode(msg: &[u8], framing: Framing) -> Result<Vec<u8>, FramingError> {
    match framing {
        Framing::EndOfMessage => encode_eom(msg),
        Framing::Chunked => encode_chunked(msg, DEFAULT_CHUNK),
    }
}

/// `msg` + `]]>]]>`. Refuses a message containing the marker: the peer would cut it there.
pub fn encode_eom(msg: &[u8]) -> Result<Vec<u8>, FramingError> {
    if find(msg, EOM, 0).is_some() {
        return Err(FramingError::MarkerInMessage);
    }
    let mut out = Vec::with_capacity(msg.len() + EOM.len());
    out.extend_from_slice(msg);
    out.extend_from_slice(EOM);
    Ok(out)
}

/// Chunked framing with chunks of at most `max_chunk` bytes (0 is treated as 1).
pub fn encode_chunked(msg: &[u8], max_chunk: usize) -> Result<Vec<u8>, FramingError> {
    if msg.is_empty() {
        return Err(FramingError::EmptyMessage);
    }
    let max_chunk = max_chunk.clamp(1, MAX_CHUNK_SIZE as usize);
    let mut out = Vec::with_capacity(msg.len() + 16 * (msg.len() / max_chunk + 1) + 4);
    for chunk in msg.chunks(max_chunk) {
        out.extend_from_slice(format!("\n#{}\n", chunk.len()).as_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(b"\n##\n");
    Ok(out)
}

/// Where the chunked decoder is within a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ChunkState {
    /// Expecting `LF #` of a chunk header or the end-of-chunks marker.
    Header,
    /// Inside a chunk's data, this many bytes still to come.
    Data(u64),
}

/// Incremental decoder: [`Decoder::feed`] bytes, then take messages with
/// [`Decoder::next_message`] until it returns `Ok(None)`.
#[derive(Debug)]
pub struct Decoder {
    framing: Framing,
    /// Received bytes not yet consumed start at `pos`; compacted when the consumed prefix is large.
    buf: Vec<u8>,
    pos: usize,
    /// End-of-message framing: how far (from `pos`) the marker has been searched already, so
    /// feeding a large message in small pieces stays linear.
    scanned: usize,
    /// Chunked framing: the message reassembled so far and where we are in it.
    msg: Vec<u8>,
    chunk: ChunkState,
    /// Whether any chunk of the current message has been seen (for leading-whitespace leniency).
    in_message: bool,
    max_message: usize,
    poisoned: bool,
}

impl Decoder {
    /// A decoder starting with `framing` (NETCONF sessions start with end-of-message for hello).
    pub fn new(framing: Framing) -> Self {
        Self::with_limit(framing, DEFAULT_MAX_MESSAGE)
    }

    /// A decoder that rejects messages longer than `max_message` bytes.
    pub fn with_limit(framing: Framing, max_message: usize) -> Self {
        Self {
            framing,
            buf: Vec::new(),
            pos: 0,
            scanned: 0,
            msg: Vec::new(),
            chunk: ChunkState::Header,
            in_message: false,
            max_message,
            poisoned: false,
        }
    }

    pub fn framing(&self) -> Framing {
        self.framing
    }

    /// Switch framing for the next message. Call between messages only (after the hellos):
    /// bytes already buffered belong to the next message and are read with the new framing.
    pub fn set_framing(&mut self, framing: Framing) {
        self.framing = framing;
        self.scanned = 0;
        self.chunk = ChunkState::Header;
        self.msg.clear();
        self.in_message = false;
    }

    /// Whether the decoder holds a partial message (useful to report a truncated stream at EOF).
    pub fn has_partial(&self) -> bool {
        self.in_message
            || !self.msg.is_empty()
            || self.buf[self.pos..]
                .iter()
                .any(|b| !b.is_ascii_whitespace())
    }

    /// Append received bytes. Never fails; errors surface from [`Decoder::next_message`].
    pub fn feed(&mut self, bytes: &[u8]) {
        // Drop the consumed prefix once it dominates the buffer: amortised O(1) per byte.
        if self.pos > 0 && self.pos >= self.buf.len() / 2 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete message, `Ok(None)` when more bytes are needed.
    pub fn next_message(&mut self) -> Result<Option<Vec<u8>>, FramingError> {
        if self.poisoned {
            return Err(FramingError::Poisoned);
        }
        let r = match self.framing {
            Framing::EndOfMessage => self.next_eom(),
            Framing::Chunked => self.next_chunked(),
        };
        if r.is_err() {
            self.poisoned = true;
        }
        r
    }

    /// Feed bytes and collect every message now complete (convenience for a fixed framing).
    pub fn decode(&mut self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, FramingError> {
        self.feed(bytes);
        let mut out = Vec::new();
        while let Some(m) = self.next_message()? {
            out.push(m);
        }
        Ok(out)
    }

    fn next_eom(&mut self) -> Result<Option<Vec<u8>>, FramingError> {
        let avail = &self.buf[self.pos..];
        // Resume a few bytes early: the marker may straddle two feeds.
        let from = self.scanned.saturating_sub(EOM.len() - 1);
        match find(avail, EOM, from) {
            Some(i) if i > self.max_message => Err(FramingError::TooLarge {
                limit: self.max_message,
            }),
            Some(i) => {
                let msg = avail[..i].to_vec();
                self.pos += i + EOM.len();
                self.scanned = 0;
                Ok(Some(msg))
            }
            None => {
                if avail.len() > self.max_message.saturating_add(EOM.len()) {
                    return Err(FramingError::TooLarge {
                        limit: self.max_message,
                    });
                }
                self.scanned = avail.len();
                Ok(None)
            }
        }
    }

    fn next_chunked(&mut self) -> Result<Option<Vec<u8>>, FramingError> {
        loop {
            match self.chunk {
                ChunkState::Data(left) => {
                    let avail = self.buf.len() - self.pos;
                    if avail == 0 {
                        return Ok(None);
                    }
                    let take = usize::try_from(left).unwrap_or(usize::MAX).min(avail);
                    if self.msg.len().saturating_add(take) > self.max_message {
                        return Err(FramingError::TooLarge {
                            limit: self.max_message,
                        });
                    }
                    self.msg
                        .extend_from_slice(&self.buf[self.pos..self.pos + take]);
                    self.pos += take;
                    let left = left - take as u64;
                    self.chunk = if left == 0 {
                        ChunkState::Header
                    } else {
                        ChunkState::Data(left)
                    };
                }
                ChunkState::Header => {
                    if !self.in_message {
                        self.skip_interframe_whitespace();
                    }
                    match parse_header(&self.buf[self.pos..])? {
                        Header::Incomplete => return Ok(None),
                        Header::Chunk { size, len } => {
                            self.pos += len;
                            self.in_message = true;
                            self.chunk = ChunkState::Data(size);
                        }
                        Header::End { len } => {
                            if !self.in_message {
                                // `LF##LF` with no chunk before it: an empty message is not
                                // allowed by the grammar (chunked-message = 1*chunk end-of-chunks).
                                return Err(FramingError::BadChunkHeader("\n##\n".into()));
                            }
                            self.pos += len;
                            self.in_message = false;
                            return Ok(Some(std::mem::take(&mut self.msg)));
                        }
                    }
                }
            }
        }
    }

    /// Between messages, tolerate whitespace that is not the start of a chunk header: some
    /// servers put a newline after the hello's `]]>]]>` before switching to chunked framing.
    fn skip_interframe_whitespace(&mut self) {
        while let Some(&b) = self.buf.get(self.pos) {
            let starts_header = b == b'\n' && self.buf.get(self.pos + 1) == Some(&b'#');
            let undecided = b == b'\n' && self.pos + 1 == self.buf.len();
            if starts_header || undecided || !b.is_ascii_whitespace() {
                return;
            }
            self.pos += 1;
        }
    }
}

enum Header {
    Incomplete,
    Chunk { size: u64, len: usize },
    End { len: usize },
}

/// Parse `LF # size LF` or `LF ## LF` at the start of `b`.
fn parse_header(b: &[u8]) -> Result<Header, FramingError> {
    let bad = |upto: usize| {
        FramingError::BadChunkHeader(String::from_utf8_lossy(&b[..upto.min(b.len())]).into_owned())
    };
    for (i, want) in [b'\n', b'#'].into_iter().enumerate() {
        match b.get(i) {
            None => return Ok(Header::Incomplete),
            Some(&c) if c != want => return Err(bad(i + 1)),
            Some(_) => {}
        }
    }
    match b.get(2) {
        None => return Ok(Header::Incomplete),
        Some(b'#') => {
            return match b.get(3) {
                None => Ok(Header::Incomplete),
                Some(b'\n') => Ok(Header::End { len: 4 }),
                Some(_) => Err(bad(4)),
            };
        }
        Some(_) => {}
    }
    // Size: 1*DIGIT1 *DIGIT, at most 10 digits (4294967295).
    let digits = &b[2..];
    let mut n = 0usize;
    while let Some(&c) = digits.get(n) {
        if c == b'\n' {
            break;
        }
        if !c.is_ascii_digit() {
            return Err(bad(3 + n));
        }
        n += 1;
        if n > 10 {
            return Err(FramingError::BadChunkSize(
                String::from_utf8_lossy(&digits[..n]).into_owned(),
            ));
        }
    }
    if digits.get(n).is_none() {
        return Ok(Header::Incomplete);
    }
    let text = &digits[..n];
    let shown = || String::from_utf8_lossy(text).into_owned();
    if n == 0 || text[0] == b'0' {
        return Err(FramingError::BadChunkSize(shown()));
    }
    let size = std::str::from_utf8(text)
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .filter(|&s| (1..=MAX_CHUNK_SIZE).contains(&s))
        .ok_or_else(|| FramingError::BadChunkSize(shown()))?;
    Ok(Header::Chunk {
        size,
        len: 2 + n + 1,
    })
}

/// First index of `needle` in `hay` at or after `from`.
fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if from >= hay.len() || needle.is_empty() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Feed `stream` cut at `cuts` (sorted, deduplicated offsets) and collect the messages.
    fn decode_in_pieces(
        stream: &[u8],
        cuts: &[usize],
        framing: Framing,
    ) -> Result<Vec<Vec<u8>>, FramingError> {
        let mut d = Decoder::new(framing);
        let mut out = Vec::new();
        let mut last = 0;
        for &c in cuts.iter().chain(std::iter::once(&stream.len())) {
            let c = c.min(stream.len());
            if c < last {
                continue;
            }
            out.extend(d.decode(&stream[last..c])?);
            last = c;
        }
        Ok(out)
    }

    fn cuts_for(len: usize, raw: &[usize]) -> Vec<usize> {
        let mut v: Vec<usize> = raw.iter().map(|c| c % (len + 1)).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    proptest! {
        #[test]
        fn chunked_roundtrip_any_chunking(
            msgs in prop::collection::vec(prop::collection::vec(any::<u8>(), 1..600), 1..6),
            chunk in 1usize..200,
            raw_cuts in prop::collection::vec(any::<usize>(), 0..40),
        ) {
            let mut stream = Vec::new();
            for m in &msgs {
                stream.extend(encode_chunked(m, chunk).unwrap());
            }
            let cuts = cuts_for(stream.len(), &raw_cuts);
            prop_assert_eq!(decode_in_pieces(&stream, &cuts, Framing::Chunked).unwrap(), msgs);
        }

        #[test]
        fn eom_roundtrip_any_chunking(
            msgs in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..600), 1..6)
                .prop_filter("no marker inside", |ms| ms.iter().all(|m| {
                    // A message ending in a marker prefix would merge with the next marker.
                    find(m, EOM, 0).is_none() && !(1..EOM.len()).any(|k| m.ends_with(&EOM[..k]))
                })),
            raw_cuts in prop::collection::vec(any::<usize>(), 0..40),
        ) {
            let mut stream = Vec::new();
            for m in &msgs {
                stream.extend(encode_eom(m).unwrap());
            }
            let cuts = cuts_for(stream.len(), &raw_cuts);
            prop_assert_eq!(decode_in_pieces(&stream, &cuts, Framing::EndOfMessage).unwrap(), msgs);
        }

        #[test]
        fn garbage_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..300), eom in any::<bool>()) {
            let framing = if eom { Framing::EndOfMessage } else { Framing::Chunked };
            let mut d = Decoder::with_limit(framing, 128);
            let _ = d.decode(&bytes);
        }

        #[test]
        fn hello_then_chunked_switch(
            hello in "[a-z<>/ ]{1,80}",
            msgs in prop::collection::vec(prop::collection::vec(any::<u8>(), 1..300), 1..4),
            raw_cuts in prop::collection::vec(any::<usize>(), 0..20),
        ) {
            let mut stream = encode_eom(hello.as_bytes()).unwrap();
            for m in &msgs {
                stream.extend(encode_chunked(m, 7).unwrap());
            }
            let cuts = cuts_for(stream.len(), &raw_cuts);
            let mut d = Decoder::new(Framing::EndOfMessage);
            let mut got = Vec::new();
            let mut last = 0;
            for &c in cuts.iter().chain(std::iter::once(&stream.len())) {
                d.feed(&stream[last..c]);
                last = c;
                while let Some(m) = d.next_message().unwrap() {
                    if d.framing() == Framing::EndOfMessage {
                        prop_assert_eq!(&m, hello.as_bytes());
                        d.set_framing(Framing::Chunked);
                    } else {
                        got.push(m);
                    }
                }
            }
            prop_assert_eq!(got, msgs);
        }
    }

    #[test]
    fn multi_megabyte_message_in_small_reads() {
        // 6 MiB of XML-ish text, fed in 1500-byte pieces like network reads.
        let body: Vec<u8> = (0..6 * 1024 * 1024u32)
            .map(|i| b"<a>xyz</a>"[(i % 10) as usize])
            .collect();
        for framing in [Framing::Chunked, Framing::EndOfMessage] {
            let stream = encode(&body, framing).unwrap();
            let mut d = Decoder::new(framing);
            let mut got = Vec::new();
            let started = std::time::Instant::now();
            for piece in stream.chunks(1500) {
                got.extend(d.decode(piece).unwrap());
            }
            assert_eq!(got.len(), 1);
            assert!(got[0] == body, "{framing:?} reassembly differs");
            // Linear time: quadratic rescanning would take minutes here.
            assert!(
                started.elapsed().as_secs() < 20,
                "{framing:?} decode too slow"
            );
        }
    }

    #[test]
    fn rejects_bad_chunk_headers() {
        for bad in [
            &b"\n#0\nx\n##\n"[..],
            b"\n#01\nx\n##\n",
            b"\n#99999999999\n",
            b"\n#4294967296\n",
            b"\n#1a\n",
            b"\n##\n",
            b"#1\nx\n##\n",
            b"\n#1\nxy\n##\n",
        ] {
            let mut d = Decoder::new(Framing::Chunked);
            assert!(d.decode(bad).is_err(), "accepted {bad:?}");
            assert_eq!(d.next_message(), Err(FramingError::Poisoned));
        }
    }

    #[test]
    fn largest_size_header_parses() {
        let mut d = Decoder::new(Framing::Chunked);
        assert_eq!(
            d.decode(b"\n#4294967295\nabc").unwrap(),
            Vec::<Vec<u8>>::new()
        );
        assert!(d.has_partial());
    }

    #[test]
    fn size_limit_enforced() {
        let msg = vec![b'x'; 1000];
        let mut d = Decoder::with_limit(Framing::Chunked, 999);
        assert!(matches!(
            d.decode(&encode_chunked(&msg, 100).unwrap()),
            Err(FramingError::TooLarge { .. })
        ));
        let mut d = Decoder::with_limit(Framing::EndOfMessage, 999);
        assert!(matches!(
            d.decode(&encode_eom(&msg).unwrap()),
            Err(FramingError::TooLarge { .. })
        ));
    }

    #[test]
    fn tolerates_newline_between_hello_and_first_chunk() {
        let mut d = Decoder::new(Framing::EndOfMessage);
        d.feed(b"<hello/>]]>]]>\n");
        assert_eq!(d.next_message().unwrap(), Some(b"<hello/>".to_vec()));
        d.set_framing(Framing::Chunked);
        assert_eq!(d.next_message().unwrap(), None);
        d.feed(b"\n#3\nabc\n##\n");
        assert_eq!(d.next_message().unwrap(), Some(b"abc".to_vec()));
    }

    #[test]
    fn encoder_refuses_what_cannot_be_framed() {
        assert_eq!(encode_eom(b"a]]>]]>b"), Err(FramingError::MarkerInMessage));
        assert_eq!(encode_chunked(b"", 10), Err(FramingError::EmptyMessage));
        assert_eq!(
            encode_chunked(b"abcde", 2).unwrap(),
            b"\n#2\nab\n#2\ncd\n#1\ne\n##\n".to_vec()
        );
    }
}
