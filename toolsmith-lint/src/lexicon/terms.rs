//! [`Terms`]: a word or phrase list of the lexicon with every word hashed when the crate is
//! compiled, so that a check asks "is one of these words in the sentence" with integer
//! comparisons against the hashes the sentence splitter computed once per word of the text,
//! instead of comparing strings list entry by list entry.
//!
//! Write a list with [`terms!`]: `terms!["must", "has to", "needs * be"]`. An entry
//! is one word or a phrase of words parted by single spaces; `*` in a phrase stands for any one
//! word. A `Terms` dereferences to the entries as written, for the checks that read them as
//! strings.

/// The hash of a lowercase word: FNV-1a over its bytes, folded to 32 bits. Never [`ANY`].
pub(crate) const fn hash(w: &[u8]) -> u32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < w.len() {
        h ^= w[i] as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    let h = (h ^ (h >> 32)) as u32;
    if h == ANY {
        1
    } else {
        h
    }
}

/// [`hash`] of a word of a text: a typographic apostrophe (`’`, as in "don’t") hashes as `'`,
/// as the lists write it.
pub(crate) fn hash_word(w: &[u8]) -> u32 {
    if !w.windows(3).any(|x| x == APOSTROPHE) {
        return hash(w);
    }
    let mut folded = Vec::with_capacity(w.len());
    let mut i = 0;
    while i < w.len() {
        if w[i..].starts_with(APOSTROPHE) {
            folded.push(b'\'');
            i += 3;
        } else {
            folded.push(w[i]);
            i += 1;
        }
    }
    hash(&folded)
}

/// U+2019 RIGHT SINGLE QUOTATION MARK in UTF-8.
const APOSTROPHE: &[u8] = "\u{2019}".as_bytes();

/// Whether the word of a text `word` is the list word `term` (`’` read as `'`).
#[inline]
pub(crate) fn same(word: &str, term: &str) -> bool {
    word == term || (word.contains('\u{2019}') && word.replace('\u{2019}', "'") == term)
}

/// The hash a phrase's `*` stands as: any one word.
pub(crate) const ANY: u32 = 0;

/// Bits of a [`Terms`]' or a sentence's filter: a word sets bit `hash % FILTER_BITS`.
pub(crate) const FILTER_BITS: u32 = 1024;

/// The filter's words.
pub(crate) const FILTER_WORDS: usize = (FILTER_BITS / 64) as usize;

/// Sets the filter bit of the word hash `h` in `f`.
#[inline]
pub(crate) const fn set_bit(f: &mut [u64; FILTER_WORDS], h: u32) {
    let b = h % FILTER_BITS;
    f[(b / 64) as usize] |= 1 << (b % 64);
}

/// Whether the filter bit of the word hash `h` is set in `f`.
#[inline]
pub(crate) fn has_bit(f: &[u64; FILTER_WORDS], h: u32) -> bool {
    let b = h % FILTER_BITS;
    f[(b / 64) as usize] & (1 << (b % 64)) != 0
}

/// A word or phrase list, hashed when compiled (see the module).
pub(crate) struct Terms {
    /// The entries as written.
    terms: &'static [&'static str],
    /// Per entry: its number of words `n`, then the hashes of its `n` words ([`ANY`] for `*`).
    flat: &'static [u32],
    /// The filter of every entry's first word (an entry that starts with `*` sets none and
    /// makes [`Terms::wild`] true).
    firsts: [u64; FILTER_WORDS],
    /// Whether some entry starts with `*`.
    wild: bool,
}

impl Terms {
    /// The list of `terms`, whose [`flatten`]ed hashes are `flat`.
    pub(crate) const fn new(terms: &'static [&'static str], flat: &'static [u32]) -> Terms {
        let mut firsts = [0u64; FILTER_WORDS];
        let mut wild = false;
        let mut i = 0;
        while i < flat.len() {
            let n = flat[i] as usize;
            if flat[i + 1] == ANY {
                wild = true;
            } else {
                set_bit(&mut firsts, flat[i + 1]);
            }
            i += n + 1;
        }
        Terms {
            terms,
            flat,
            firsts,
            wild,
        }
    }

    /// The entries as hashed words: `(entry index, hashes of its words)`, in order.
    #[inline]
    pub(crate) fn entries(&self) -> Entries {
        Entries {
            flat: self.flat,
            at: 0,
            index: 0,
        }
    }

    /// Whether some entry may start with a word of the sentence whose filter is `f` (`false`:
    /// none does).
    #[inline]
    pub(crate) fn may_start_in(&self, f: &[u64; FILTER_WORDS]) -> bool {
        self.wild || self.firsts.iter().zip(f).any(|(a, b)| a & b != 0)
    }

    /// The entries as written (what the `Deref` gives, in a `const`).
    pub(crate) const fn as_slice(&self) -> &'static [&'static str] {
        self.terms
    }

    /// The entry at `index`, as written.
    #[inline]
    pub(crate) fn term(&self, index: usize) -> &'static str {
        self.terms[index]
    }
}

impl std::ops::Deref for Terms {
    type Target = [&'static str];
    fn deref(&self) -> &[&'static str] {
        self.terms
    }
}

impl<'a> IntoIterator for &'a Terms {
    type Item = &'a &'static str;
    type IntoIter = std::slice::Iter<'a, &'static str>;
    fn into_iter(self) -> Self::IntoIter {
        self.terms.iter()
    }
}

impl std::fmt::Debug for Terms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.terms).finish()
    }
}

/// The entries of a [`Terms`] as word hashes.
pub(crate) struct Entries {
    flat: &'static [u32],
    at: usize,
    index: usize,
}

impl Iterator for Entries {
    type Item = (usize, &'static [u32]);
    #[inline]
    fn next(&mut self) -> Option<(usize, &'static [u32])> {
        let n = *self.flat.get(self.at)? as usize;
        let words = &self.flat[self.at + 1..self.at + 1 + n];
        let index = self.index;
        self.at += n + 1;
        self.index += 1;
        Some((index, words))
    }
}

/// The length of [`flatten`]`(terms)`: an entry count plus every entry's words.
pub(crate) const fn flat_len(terms: &[&str]) -> usize {
    let mut len = 0;
    let mut i = 0;
    while i < terms.len() {
        len += 1 + word_count(terms[i].as_bytes());
        i += 1;
    }
    len
}

/// The words of a term parted by single spaces (a term that is not, such as `"a  b"` or
/// `" a"`, fails to compile: see [`flatten`]).
const fn word_count(t: &[u8]) -> usize {
    let mut n = 1;
    let mut i = 0;
    while i < t.len() {
        if t[i] == b' ' {
            n += 1;
        }
        i += 1;
    }
    n
}

/// Every term of `terms` as its word count followed by its words' hashes ([`ANY`] for `*`).
///
/// # Panics
/// At compile time, when a term is empty, has an empty word (two spaces in a row, a space at
/// either end) or an uppercase letter: the lists are compared with lowercased text.
pub(crate) const fn flatten<const N: usize>(terms: &[&str]) -> [u32; N] {
    let mut out = [0u32; N];
    let mut at = 0;
    let mut i = 0;
    while i < terms.len() {
        let t = terms[i].as_bytes();
        out[at] = word_count(t) as u32;
        at += 1;
        let mut start = 0;
        let mut j = 0;
        while j <= t.len() {
            if j == t.len() || t[j] == b' ' {
                assert!(j > start, "a lexicon term has an empty word");
                let (_, rest) = t.split_at(start);
                let (word, _) = rest.split_at(j - start);
                out[at] = if word.len() == 1 && word[0] == b'*' {
                    ANY
                } else {
                    hash(word)
                };
                at += 1;
                start = j + 1;
            } else {
                assert!(
                    !t[j].is_ascii_uppercase(),
                    "a lexicon term is not lowercase"
                );
            }
            j += 1;
        }
        i += 1;
    }
    assert!(at == N);
    out
}

/// A [`Terms`] list of the given entries, hashed at compile time:
/// `terms!["must", "has to", "needs * be"]`.
macro_rules! terms {
    ($($t:expr),* $(,)?) => {{
        const TERMS: &[&str] = &[$($t),*];
        const FLAT: [u32; $crate::lexicon::terms::flat_len(TERMS)] =
            $crate::lexicon::terms::flatten(TERMS);
        const LIST: $crate::lexicon::terms::Terms =
            $crate::lexicon::terms::Terms::new(TERMS, &FLAT);
        &LIST
    }};
}
pub(crate) use terms;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_hashed_word_by_word() {
        let t: &Terms = terms!["must", "has to", "needs * be"];
        let got: Vec<(usize, Vec<u32>)> = t.entries().map(|(i, w)| (i, w.to_vec())).collect();
        assert_eq!(
            got,
            vec![
                (0, vec![hash(b"must")]),
                (1, vec![hash(b"has"), hash(b"to")]),
                (2, vec![hash(b"needs"), ANY, hash(b"be")]),
            ]
        );
        assert_eq!(&t[..], &["must", "has to", "needs * be"]);
        assert!(t.wild || t.firsts.iter().any(|&w| w != 0));
    }

    #[test]
    fn a_typographic_apostrophe_reads_as_the_lists_write_it() {
        assert_eq!(hash_word("don\u{2019}t".as_bytes()), hash(b"don't"));
        assert!(same("don\u{2019}t", "don't"));
        assert!(!same("dont", "don't"));
    }

    #[test]
    fn no_word_hashes_as_any() {
        assert_ne!(hash(b""), ANY);
        assert_ne!(hash(b"*"), ANY);
    }
}
