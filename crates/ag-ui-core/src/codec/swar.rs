//! Eight bytes at a time: the word test the writer and the parser share to find the bytes a
//! JSON string cannot hold as they are (`"`, `\` and the control characters below
//! `U+0020`).

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// A non-zero result when one of the eight bytes of `w` (read little-endian) is `"`, `\` or
/// a control character. The lowest flagged byte is always such a byte; flags above it may
/// be false positives (a borrow carried out of the byte below), never false negatives.
#[inline]
pub(crate) fn may_escape(w: u64) -> u64 {
    let quote = w ^ (LO * u64::from(b'"'));
    let backslash = w ^ (LO * u64::from(b'\\'));
    let control = w.wrapping_sub(LO * 0x20);
    ((quote.wrapping_sub(LO) & !quote) | (backslash.wrapping_sub(LO) & !backslash) | (control & !w))
        & HI
}

/// The last one to seven bytes of a string as one little-endian word, padded with spaces
/// (which need no escape), for [`may_escape`]. Read with a few loads of the bytes
/// themselves: a word copied into a buffer first would be read back before the copy's
/// narrower stores reach it, which stalls the processor on every string.
#[inline]
pub(crate) fn tail_word(rest: &[u8]) -> u64 {
    const SPACES: u64 = LO * 0x20;
    let n = rest.len();
    let word = if let (Some(lo), Some(hi)) = (rest.first_chunk::<4>(), rest.last_chunk::<4>()) {
        // Four to seven bytes: two overlapping halves (the shared bytes are equal).
        u64::from(u32::from_le_bytes(*lo)) | (u64::from(u32::from_le_bytes(*hi)) << ((n - 4) * 8))
    } else {
        // One to three bytes: the first, the middle and the last (some the same).
        let byte = |k: usize| u64::from(rest.get(k).copied().unwrap_or(b' ')) << (k * 8);
        byte(0) | byte(n / 2) | byte(n.saturating_sub(1))
    };
    match n {
        1..8 => word | (SPACES << (n * 8)),
        _ => SPACES,
    }
}

/// Whether `byte` is one that a JSON string escapes: `"`, `\` or a control character.
#[inline]
pub(crate) const fn escaped(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// The index of the first byte at or after `from` that [`escaped`] flags, or `bytes.len()`.
#[inline]
pub(crate) fn find_escaped(bytes: &[u8], from: usize) -> usize {
    const LO16: u128 = 0x0101_0101_0101_0101_0101_0101_0101_0101;
    const HI16: u128 = LO16 << 7;
    let mut i = from;
    // Sixteen bytes a step: most strings (keys, ids, short deltas) end within the first.
    while let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<16>) {
        let w = u128::from_le_bytes(*chunk);
        let quote = w ^ (LO16 * u128::from(b'"'));
        let backslash = w ^ (LO16 * u128::from(b'\\'));
        let control = w.wrapping_sub(LO16 * 0x20);
        let m = ((quote.wrapping_sub(LO16) & !quote)
            | (backslash.wrapping_sub(LO16) & !backslash)
            | (control & !w))
            & HI16;
        if m != 0 {
            // The lowest flag is a true one (see `may_escape`).
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 16;
    }
    while let Some(word) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let m = may_escape(u64::from_le_bytes(*word));
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if escaped(b) {
            return i;
        }
        i += 1;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::{escaped, find_escaped, tail_word};

    #[test]
    fn a_tail_word_is_its_bytes_padded_with_spaces() {
        for n in 0..8 {
            let rest: Vec<u8> = (0..n)
                .map(|k| [b'"', 0x01, b'\\', 0xff, b'a', 0x1f, 0x80][k])
                .collect();
            let mut padded = [b' '; 8];
            padded[..n].copy_from_slice(&rest);
            assert_eq!(tail_word(&rest), u64::from_le_bytes(padded), "{rest:?}");
        }
    }

    #[test]
    fn finds_the_first_escaped_byte_at_every_offset() {
        for len in 0..40 {
            for at in 0..=len {
                for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                    // Bytes that sit next to the flagged ones in value (borrows, 0x20).
                    let mut bytes: Vec<u8> = (0..len)
                        .map(|i| [b'a', 0x20, 0x21, 0x5b, 0x5d, 0xe4, 0x80, 0xff][i % 8])
                        .collect();
                    if at < len {
                        bytes[at] = special;
                        // Anything after the hit must not move the answer.
                        for b in bytes.iter_mut().skip(at + 1) {
                            *b = b'"';
                        }
                    }
                    let expected = bytes.iter().position(|&b| escaped(b)).unwrap_or(len);
                    for from in 0..=expected {
                        assert_eq!(
                            find_escaped(&bytes, from),
                            expected,
                            "{bytes:?} from {from}"
                        );
                    }
                }
            }
        }
    }
}
