//! NETCONF framing (RFC 6242): the end-of-message (`base:1.0`) and chunked (`base:1.1`)
//! decoders, fed as a network would feed them.
//!
//! Input: `[flags, read_seed, limit, stream…]`. `flags` bit 0 picks the first framing (chunked
//! when set), bit 1 switches to chunked after the first message as a client does after the
//! hellos; `read_seed` drives the sizes of the pieces the stream arrives in; `limit` (when
//! non-zero) caps a message at `4 × limit` bytes.
//!
//! Invariants checked:
//! - split reads change nothing: the stream fed in pieces gives the same messages, and fails or
//!   not, exactly as the stream fed at once;
//! - the decoded messages are what a plain, non-incremental reading of the RFC 6242 grammar
//!   gives: for chunked framing, each message is the concatenation of its chunks' data, and the
//!   stream is an error exactly where the grammar says so (no message cap);
//! - a failed decoder stays failed (RFC 6242: the session must be closed);
//! - encode → decode is the identity, in both framings, whatever the chunk size and read sizes
//!   (the stream's bytes split at `0xff` serve as the messages).

use railyard::push::netconf::framing::{
    Decoder, EOM, Framing, FramingError, MAX_CHUNK_SIZE, encode_chunked, encode_eom,
};

pub fn run(data: &[u8]) {
    let [flags, read_seed, limit, stream @ ..] = data else {
        return;
    };
    let start = if flags & 1 == 1 {
        Framing::Chunked
    } else {
        Framing::EndOfMessage
    };
    let switch = flags & 2 == 2;
    let limit = match *limit {
        0 => None,
        l => Some(usize::from(l) * 4),
    };

    let whole = decode(stream, start, switch, limit, &[stream.len().max(1)]);
    let pieces = read_sizes(*read_seed, stream.len());
    let split = decode(stream, start, switch, limit, &pieces);
    assert_eq!(
        whole.messages, split.messages,
        "split reads changed the messages"
    );
    assert_eq!(
        whole.failed, split.failed,
        "split reads changed whether the stream fails"
    );

    if limit.is_none() {
        let (messages, failed) = reference(stream, start, switch);
        assert_eq!(
            whole.messages, messages,
            "decoder and RFC 6242 grammar disagree on the messages"
        );
        assert_eq!(
            whole.failed, failed,
            "decoder and RFC 6242 grammar disagree on whether the stream is valid"
        );
    }

    round_trip(stream, *read_seed);
}

struct Decoded {
    messages: Vec<Vec<u8>>,
    failed: bool,
}

/// Feed `stream` in pieces of the given sizes (cycled), switching framing after the first
/// message when `switch`.
fn decode(
    stream: &[u8],
    start: Framing,
    switch: bool,
    limit: Option<usize>,
    sizes: &[usize],
) -> Decoded {
    let mut d = match limit {
        Some(l) => Decoder::with_limit(start, l),
        None => Decoder::new(start),
    };
    let mut messages = Vec::new();
    let mut at = 0;
    let mut sizes = sizes.iter().cycle();
    loop {
        loop {
            match d.next_message() {
                Ok(Some(m)) => {
                    if let Some(l) = limit {
                        assert!(m.len() <= l, "a message beyond the cap was returned");
                    }
                    messages.push(m);
                    if switch && d.framing() == Framing::EndOfMessage {
                        d.set_framing(Framing::Chunked);
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    assert_ne!(e, FramingError::Poisoned, "poisoned before any error");
                    assert_eq!(d.next_message(), Err(FramingError::Poisoned));
                    let _ = e.to_string();
                    return Decoded {
                        messages,
                        failed: true,
                    };
                }
            }
        }
        if at == stream.len() {
            let _ = d.has_partial();
            return Decoded {
                messages,
                failed: false,
            };
        }
        let n = (*sizes.next().unwrap_or(&1)).clamp(1, stream.len() - at);
        d.feed(&stream[at..at + n]);
        at += n;
    }
}

/// Read sizes from a small xorshift generator: mostly 1–16 bytes, sometimes up to 4 KiB.
fn read_sizes(seed: u8, len: usize) -> Vec<usize> {
    let mut x = u32::from(seed) | 0x9e37_7900;
    let mut out = Vec::new();
    let mut total = 0;
    while total < len && out.len() < 4096 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let n = if x % 8 == 0 {
            (x >> 8) as usize % 4096 + 1
        } else {
            (x >> 8) as usize % 16 + 1
        };
        total += n;
        out.push(n);
    }
    if out.is_empty() {
        out.push(1);
    }
    out
}

/// RFC 6242 read over the whole buffer at once: the messages, and whether the stream breaks the
/// grammar (an incomplete tail is not an error). Between chunked messages, whitespace that does
/// not start a chunk header is skipped, as railyard allows after the hello.
fn reference(stream: &[u8], start: Framing, switch: bool) -> (Vec<Vec<u8>>, bool) {
    let mut messages = Vec::new();
    let mut pos = 0;
    let mut framing = start;
    loop {
        match framing {
            Framing::EndOfMessage => {
                let Some(i) = stream[pos..].windows(EOM.len()).position(|w| w == EOM) else {
                    return (messages, false);
                };
                messages.push(stream[pos..pos + i].to_vec());
                pos += i + EOM.len();
                if switch {
                    framing = Framing::Chunked;
                }
            }
            Framing::Chunked => {
                return match chunked_reference(&stream[pos..], &mut messages) {
                    Step::Error => (messages, true),
                    Step::Incomplete => (messages, false),
                };
            }
        }
    }
}

enum Step {
    Incomplete,
    Error,
}

fn chunked_reference(b: &[u8], messages: &mut Vec<Vec<u8>>) -> Step {
    let mut pos = 0;
    let mut msg: Option<Vec<u8>> = None;
    loop {
        if msg.is_none() {
            while let Some(&c) = b.get(pos) {
                let header = c == b'\n' && b.get(pos + 1) == Some(&b'#');
                let undecided = c == b'\n' && pos + 1 == b.len();
                if header || undecided || !c.is_ascii_whitespace() {
                    break;
                }
                pos += 1;
            }
        }
        let r = &b[pos..];
        match (r.first(), r.get(1)) {
            (None, _) => return Step::Incomplete,
            (Some(b'\n'), None) => return Step::Incomplete,
            (Some(b'\n'), Some(b'#')) => {}
            _ => return Step::Error,
        }
        match r.get(2) {
            None => return Step::Incomplete,
            Some(b'#') => match r.get(3) {
                None => return Step::Incomplete,
                Some(b'\n') => {
                    let Some(m) = msg.take() else {
                        return Step::Error;
                    };
                    messages.push(m);
                    pos += 4;
                    continue;
                }
                Some(_) => return Step::Error,
            },
            Some(_) => {}
        }
        let digits: Vec<u8> = r[2..].iter().copied().take_while(|&c| c != b'\n').collect();
        // A non-digit, or an eleventh digit, is an error as soon as it is seen.
        if digits.len() > 10 || !digits.iter().all(u8::is_ascii_digit) {
            return Step::Error;
        }
        if r.len() == 2 + digits.len() {
            return Step::Incomplete;
        }
        if digits.is_empty() || digits[0] == b'0' {
            return Step::Error;
        }
        let size: u64 = digits.iter().fold(0, |n, &c| n * 10 + u64::from(c - b'0'));
        if size > MAX_CHUNK_SIZE {
            return Step::Error;
        }
        let data_at = pos + 2 + digits.len() + 1;
        let Some(data) = usize::try_from(size)
            .ok()
            .and_then(|s| b.get(data_at..data_at.checked_add(s)?))
        else {
            return Step::Incomplete;
        };
        msg.get_or_insert_with(Vec::new).extend_from_slice(data);
        pos = data_at + data.len();
    }
}

/// The stream's bytes, split at `0xff`, as messages: chunked framing round-trips every
/// non-empty one; end-of-message framing every one that neither holds the marker nor ends in a
/// prefix of it (the marker would then be found early).
fn round_trip(stream: &[u8], seed: u8) {
    let msgs: Vec<&[u8]> = stream.split(|&b| b == 0xff).collect();
    let chunk = usize::from(seed % 64) + 1;
    let sizes = read_sizes(seed.wrapping_mul(31), stream.len() * 2 + 64);

    let chunked: Vec<&[u8]> = msgs.iter().copied().filter(|m| !m.is_empty()).collect();
    let mut wire = Vec::new();
    for m in &chunked {
        wire.extend(encode_chunked(m, chunk).unwrap_or_else(|e| panic!("encode_chunked: {e}")));
    }
    let got = decode(&wire, Framing::Chunked, false, None, &sizes);
    assert!(!got.failed, "decoding what encode_chunked wrote failed");
    assert_eq!(
        got.messages, chunked,
        "chunked round trip changed the messages"
    );

    let eom: Vec<&[u8]> = msgs
        .iter()
        .copied()
        .filter(|m| {
            !m.windows(EOM.len()).any(|w| w == EOM)
                && !(1..EOM.len()).any(|k| m.ends_with(&EOM[..k]))
        })
        .collect();
    let mut wire = Vec::new();
    for m in &eom {
        wire.extend(encode_eom(m).unwrap_or_else(|e| panic!("encode_eom: {e}")));
    }
    let got = decode(&wire, Framing::EndOfMessage, false, None, &sizes);
    assert!(!got.failed, "decoding what encode_eom wrote failed");
    assert_eq!(
        got.messages, eom,
        "end-of-message round trip changed the messages"
    );

    // Hello in end-of-message framing, then the chunked messages: a session's byte stream.
    if let Some((hello, rest)) = eom.split_first() {
        let mut wire = encode_eom(hello).unwrap_or_default();
        let rest: Vec<&[u8]> = rest.iter().copied().filter(|m| !m.is_empty()).collect();
        for m in &rest {
            wire.extend(encode_chunked(m, chunk).unwrap_or_default());
        }
        let got = decode(&wire, Framing::EndOfMessage, true, None, &sizes);
        assert!(!got.failed, "a hello followed by chunked messages failed");
        let mut want = vec![*hello];
        want.extend(rest);
        assert_eq!(
            got.messages, want,
            "hello + chunked round trip changed the messages"
        );
    }
}
