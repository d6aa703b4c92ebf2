//! The rules only the `#[tool]` macro can check, because they compare the text with the Rust
//! signature, which no tool list carries: `return_unstated` (the description says nothing of the
//! value the function returns) and `constraint_contradicted` (a parameter's description says
//! otherwise than what is declared of it: `Option`, `#[arg(default)]`, the bounds of `#[arg]`).
//!
//! The macro builds the facts from its parsed model ([`Returned`], [`Declared`]); the functions
//! here read the text and return [`Finding`]s, which the macro reports with its other findings
//! (allows, spans and severities as for every rule). `lint_definition` and `toolsmith lint` never
//! run them: a JSON schema says `required` and `maximum` in the same words as the text would, but
//! a tool list cannot say which of the two a person wrote by mistake.
//!
//! ```
//! use toolsmith_lint::compile_checks::{return_unstated, Returned};
//! let names = ["Vec".to_string(), "Forecast".to_string()];
//! let ret = Returned { shown: "Vec<Forecast>", names: &names, many: true };
//! assert!(return_unstated("get_forecast", "Forecast for one city, by day.", &ret).is_none());
//! let f = return_unstated("get_forecast", "Watches the sky over a city.", &ret).unwrap();
//! assert!(f.message.contains("\"Returns the forecasts ...\""));
//! ```

use crate::finding::{child, Finding};

/// The rules of this module, which no tool list is judged by: only the `#[tool]` macro runs them.
pub const SIGNATURE_RULES: [&str; 2] = ["return_unstated", "constraint_contradicted"];
use crate::rules::severity_of;
use crate::text::{says_what_it_returns, to_snake_case, Words};

/// Whether a description states what comes back, as `says_what_it_returns` reads it: a word such
/// as "returns", "lists" or "gives", or a first word that is a retrieval verb ("Gets the ...").
///
/// ```
/// assert!(toolsmith_lint::compile_checks::states_result("Gets the weather of a city."));
/// assert!(!toolsmith_lint::compile_checks::states_result("The weather of a city."));
/// ```
pub fn states_result(description: &str) -> bool {
    says_what_it_returns(&Words::new(description))
}

/// The return type of a tool, as the macro sees it.
#[derive(Clone, Copy, Debug)]
pub struct Returned<'a> {
    /// The type the model reads, as written: the ok type of a `Result`, without `Reply`
    /// (`Vec<Forecast>`).
    pub shown: &'a str,
    /// The last segment of each path in the type, outermost first: `Vec<Forecast>` gives
    /// `["Vec", "Forecast"]`.
    pub names: &'a [String],
    /// Whether the value is a list (the message's example then says the plural).
    pub many: bool,
}

/// Type names that say nothing of what a value holds: wrappers, collections, primitives and
/// schemaless values. For a type made of these alone, only a statement of the result counts.
const NOT_CONTENT: &[&str] = &[
    "result",
    "option",
    "vec",
    "vecdeque",
    "linkedlist",
    "hashset",
    "btreeset",
    "indexset",
    "hashmap",
    "btreemap",
    "indexmap",
    "map",
    "box",
    "rc",
    "arc",
    "cow",
    "cell",
    "refcell",
    "mutex",
    "rwlock",
    "json",
    "reply",
    "content",
    "value",
    "number",
    "object",
    "string",
    "str",
    "char",
    "bool",
    "bytes",
    "self",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "f32",
    "f64",
];

/// Words of a type name too small to name anything (`OfferOfTheDay`: "of", "the").
const TYPE_STOP_WORDS: &[&str] = &["the", "and", "for", "with", "from", "per", "into"];

/// The content words of a type's names, lowercase: `["Vec", "ForecastReport"]` gives
/// `["forecast", "report"]`. Wrappers, collections, primitives and schemaless values
/// (`Option`, `Vec`, `HashMap`, `String`, `Value`, ...) give none, nor do one-letter generics.
///
/// ```
/// let names = ["Result".to_string(), "Option".to_string(), "ForecastReport".to_string()];
/// assert_eq!(toolsmith_lint::compile_checks::type_words(&names), ["forecast", "report"]);
/// ```
pub fn type_words(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for name in names {
        if name.chars().count() < 2 || NOT_CONTENT.contains(&name.to_lowercase().as_str()) {
            continue;
        }
        for w in camel_words(name) {
            if w.chars().count() >= 3 && !TYPE_STOP_WORDS.contains(&w.as_str()) && !out.contains(&w)
            {
                out.push(w);
            }
        }
    }
    out
}

/// Splits an identifier at `_` and at case changes (`HTTPResponse` → `http`, `response`;
/// `Utf8Text` → `utf8`, `text`), lowercase: the words of [`to_snake_case`], the name rule's own
/// splitter.
fn camel_words(ident: &str) -> Vec<String> {
    to_snake_case(ident)
        .split('_')
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

/// A word without its plural ending: `forecasts`, `entries`, `addresses` → `forecast`,
/// `entry`, `address`; `status` and `analysis` stay.
fn singular(w: &str) -> String {
    let n = w.len();
    if n > 4 && w.ends_with("ies") {
        return format!("{}y", &w[..n - 3]);
    }
    for end in ["sses", "xes", "ches", "shes", "zes"] {
        if n > end.len() + 1 && w.ends_with(end) {
            return w[..n - 2].to_string();
        }
    }
    if n > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        return w[..n - 1].to_string();
    }
    w.to_string()
}

/// The plural of a lowercase noun, for the message's example.
fn plural(w: &str) -> String {
    let b = w.as_bytes();
    let consonant_y = b.len() > 1 && w.ends_with('y') && !b"aeiou".contains(&b[b.len() - 2]);
    if consonant_y {
        format!("{}ies", &w[..w.len() - 1])
    } else if ["s", "x", "ch", "sh", "z"].iter().any(|e| w.ends_with(e)) {
        format!("{w}es")
    } else {
        format!("{w}s")
    }
}

/// Whether the text holds one of `words` (in any case, singular or plural), reading the text's
/// identifiers by their parts too (`ForecastReport`, `forecast_report`).
///
/// ```
/// let words = ["forecast".to_string()];
/// assert!(toolsmith_lint::compile_checks::mentions("Hourly forecasts for a city.", &words));
/// assert!(!toolsmith_lint::compile_checks::mentions("The sky over a city.", &words));
/// ```
pub fn mentions(text: &str, words: &[String]) -> bool {
    if words.is_empty() {
        return false;
    }
    let wanted: Vec<String> = words.iter().map(|w| singular(w)).collect();
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|run| !run.is_empty())
        .flat_map(camel_words)
        .any(|w| wanted.contains(&singular(&w)))
}

/// `return_unstated`: the tool returns a value (the macro passes no unit, no `Result<(), E>`) and
/// its description neither states what comes back ([`states_result`]) nor names the returned
/// type ([`type_words`], [`mentions`]). The finding is at `/outputSchema`, which the macro spans
/// at the return type.
pub fn return_unstated(tool: &str, description: &str, returned: &Returned) -> Option<Finding> {
    if states_result(description) {
        return None;
    }
    let words = type_words(returned.names);
    if mentions(description, &words) {
        return None;
    }
    let shown = returned.shown;
    // The example names the first content type of the value, in the plural for a list.
    let noun = returned
        .names
        .iter()
        .find(|n| !type_words(std::slice::from_ref(n)).is_empty())
        .map(|n| type_words(std::slice::from_ref(n)));
    let message = match noun {
        Some(mut ws) => {
            if returned.many {
                if let Some(last) = ws.last_mut() {
                    *last = plural(last);
                }
            }
            format!(
                "`{tool}` returns `{shown}` but its description never says what comes back; say it, e.g. \"Returns the {} ...\"",
                ws.join(" ")
            )
        }
        None => format!(
            "`{tool}` returns `{shown}` but its description never says what comes back; say what the value holds, e.g. \"Returns the ...\""
        ),
    };
    Some(Finding {
        rule: "return_unstated",
        severity: severity_of("return_unstated"),
        tool: tool.to_string(),
        pointer: "/outputSchema".to_string(),
        message,
        span: None,
    })
}

/// The value of a declared `#[arg(default = ...)]`, when it is a literal the macro can read.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// A number.
    Number(f64),
    /// A string.
    Text(String),
    /// `true` or `false`.
    Bool(bool),
}

impl Literal {
    /// The literal as the schema shows it: `20`, `"celsius"`, `true`.
    fn shown(&self) -> String {
        match self {
            Literal::Number(n) => number(*n),
            Literal::Text(s) => serde_json::Value::String(s.clone()).to_string(),
            Literal::Bool(b) => b.to_string(),
        }
    }
}

/// What a parameter's bounds measure, by its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// A number's value (`minimum`, `maximum`, ...).
    Value,
    /// A string's length in characters (`min_length`, `max_length`).
    Length,
    /// A list's number of items (`min_items`, `max_items`).
    Items,
}

/// One declared bound of a parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    /// The `#[arg]` key as written: `maximum`, `exclusive_minimum`, `max_length`, ...
    pub key: &'static str,
    /// Its value.
    pub value: f64,
    /// Whether the bound itself is excluded (`exclusive_minimum`, `exclusive_maximum`).
    pub exclusive: bool,
}

/// What the macro knows of one model-facing parameter.
#[derive(Clone, Debug)]
pub struct Declared<'a> {
    /// The parameter's name as the model sends it.
    pub name: &'a str,
    /// Its type as written (`Option<u32>`).
    pub ty: &'a str,
    /// Whether it is an `Option`.
    pub optional: bool,
    /// Whether it has an `#[arg(default = ...)]`.
    pub has_default: bool,
    /// The default, when it is a literal.
    pub default: Option<Literal>,
    /// What [`Declared::lower`] and [`Declared::upper`] measure.
    pub measure: Measure,
    /// Whether the value is a whole number (an integer type, a length, a count).
    pub integer: bool,
    /// The declared lower bound (`minimum`, `exclusive_minimum`, `min_length`, `min_items`).
    pub lower: Option<Bound>,
    /// The declared upper bound (`maximum`, `exclusive_maximum`, `max_length`, `max_items`).
    pub upper: Option<Bound>,
    /// Whether the type may bound the value more narrowly than the declared bounds (a type the
    /// macro cannot see into, such as `NonZeroU8`, whose schema's own bounds win): then a stated
    /// bound contradicts a declared one only when it is outside it.
    pub narrowed: bool,
}

/// `constraint_contradicted`: what a parameter's description says against what is declared of
/// it. Each finding quotes both sides and is at the parameter's description. Only a clear
/// contradiction counts: the word or number in a clause of its own, not negated ("not
/// required"), not under a condition ("required when `mode` is custom") nor in a relative
/// clause ("the fields that are required"), a number with no unit that could scale it.
///
/// ```
/// use toolsmith_lint::compile_checks::{constraint_contradicted, Bound, Declared, Measure};
/// let limit = Declared {
///     name: "limit", ty: "u32", optional: false, has_default: true, default: None,
///     measure: Measure::Value, integer: true, lower: None,
///     upper: Some(Bound { key: "maximum", value: 100.0, exclusive: false }), narrowed: false,
/// };
/// let found = constraint_contradicted("search", &limit, "How many results, up to 500.");
/// assert!(found[0].message.contains("`maximum = 100`"));
/// assert!(constraint_contradicted("search", &limit, "How many results, up to 100.").is_empty());
/// ```
pub fn constraint_contradicted(tool: &str, param: &Declared, text: &str) -> Vec<Finding> {
    let clauses = clauses(text);
    // Read once for the whole text: a condition anywhere makes a bare "required" or "optional"
    // ambiguous.
    let conditional = conditional_anywhere(&clauses);
    let mut messages = Vec::new();
    let name = param.name;
    if param.optional || param.has_default {
        if let Some(said) =
            (0..clauses.len()).find_map(|k| says_required(k, &clauses, text, param, conditional))
        {
            messages.push(if param.optional {
                format!(
                    "parameter `{name}` is optional (`{}`) but its description says \"{said}\"; make them agree: declare it without `Option` if the tool needs it, or drop the word (the model reads both)",
                    param.ty
                )
            } else {
                format!(
                    "parameter `{name}` is optional (it has a `default`) but its description says \"{said}\"; make them agree: remove the `default` if the tool needs the value, or drop the word (the model reads both)"
                )
            });
        }
    } else if let Some(said) =
        (0..clauses.len()).find_map(|k| says_optional(k, &clauses, text, param, conditional))
    {
        messages.push(format!(
            "parameter `{name}` is required (`{}`, no `default`) but its description says \"{said}\"; make them agree: declare it `Option<{}>` or give it `#[arg(default = ...)]` if it may be left out, or drop the word (the model reads both)",
            param.ty, param.ty
        ));
    }
    if let Some(declared) = &param.default {
        let said: Vec<(Literal, &str)> = clauses
            .iter()
            .flat_map(|c| defaults_said(c, &clauses, text, param))
            .collect();
        // A clause about the default that names the declared value too relates the two ("0 for
        // the default of 100"): no contradiction.
        let related = clauses.iter().any(|c| {
            c.words().any(|w| w == "default" || w == "defaults")
                && c.tokens.iter().any(|t| match &t.tok {
                    Tok::Num(n) => same_value(declared, &Literal::Number(*n)) == Some(true),
                    _ => false,
                })
        });
        let agrees = related
            || said
                .iter()
                .any(|(v, _)| same_value(declared, v) == Some(true));
        if let Some((_, quote)) = said
            .iter()
            .find(|(v, _)| !agrees && same_value(declared, v) == Some(false))
        {
            messages.push(format!(
                "parameter `{name}` is declared `default = {}` but its description says \"{quote}\"; make them agree, in `#[arg]` or in the text (the model reads both)",
                declared.shown()
            ));
        }
    }
    let said: Vec<TextBound> = clauses
        .iter()
        .flat_map(|c| bounds_said(c, text, param))
        .collect();
    for side in [Side::Lower, Side::Upper] {
        if let Some((bound, quote)) = bound_contradicted(param, side, &said) {
            messages.push(format!(
                "parameter `{name}` is declared `{} = {}` but its description says \"{quote}\"; make them agree, in `#[arg]` or in the text (the model reads both)",
                bound.key,
                number(bound.value)
            ));
        }
    }
    let pointer = child(&child("/inputSchema/properties", name), "description");
    messages
        .into_iter()
        .map(|message| Finding {
            rule: "constraint_contradicted",
            severity: severity_of("constraint_contradicted"),
            tool: tool.to_string(),
            pointer: pointer.clone(),
            message,
            span: None,
        })
        .collect()
}

/// A number as a person writes it: `100`, `0.5`.
fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// One token of a description.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// Letters, digits, `_` and inner apostrophes, lowercase; also a number with a suffix
    /// (`10mb`, `5s`, `100%`), which is no bare number.
    Word(String),
    Num(f64),
    /// Text in quotes or backticks, as written.
    Quoted(String),
    /// `-` or `–` between two numbers makes a range.
    Dash,
    /// `<=` or `≤`.
    Le,
    /// `>=` or `≥`.
    Ge,
    Colon,
    Eq,
    Other,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    /// Byte range in the text.
    start: usize,
    end: usize,
}

/// The tokens between two breaks (`,`, `;`, brackets, a dash of punctuation) or sentence ends
/// (`.`, `!`, `?` before a space, a line break), with the number of its sentence: a bound word
/// and its number must be in one clause, a condition is looked for in the whole sentence.
struct Clause {
    tokens: Vec<Token>,
    sentence: usize,
}

impl Clause {
    fn word(&self, i: usize) -> Option<&str> {
        match self.tokens.get(i).map(|t| &t.tok) {
            Some(Tok::Word(w)) => Some(w),
            _ => None,
        }
    }

    fn num(&self, i: usize) -> Option<f64> {
        match self.tokens.get(i).map(|t| &t.tok) {
            Some(Tok::Num(n)) => Some(*n),
            _ => None,
        }
    }

    fn words(&self) -> impl Iterator<Item = &str> {
        self.tokens.iter().filter_map(|t| match &t.tok {
            Tok::Word(w) => Some(w.as_str()),
            _ => None,
        })
    }

    /// Whether words `i..` are `phrase`.
    fn is_phrase(&self, i: usize, phrase: &[&str]) -> bool {
        phrase
            .iter()
            .enumerate()
            .all(|(k, p)| self.word(i + k) == Some(*p))
    }

    /// The text of tokens `i..=j`.
    fn quote<'t>(&self, text: &'t str, i: usize, j: usize) -> &'t str {
        text[self.tokens[i].start..self.tokens[j].end].trim()
    }
}

/// Splits a description into clauses of tokens.
fn clauses(text: &str) -> Vec<Clause> {
    let cs: Vec<(usize, char)> = text.char_indices().collect();
    let at = |i: usize| cs.get(i).map_or(text.len(), |c| c.0);
    let ch = |i: usize| cs.get(i).map(|c| c.1);
    let mut out = Vec::new();
    let mut cur: Vec<Token> = Vec::new();
    let mut sentence = 0;
    let mut i = 0;
    macro_rules! flush {
        () => {
            if !cur.is_empty() {
                out.push(Clause {
                    tokens: std::mem::take(&mut cur),
                    sentence,
                });
            }
        };
    }
    while i < cs.len() {
        let c = cs[i].1;
        let start = at(i);
        let prev = i.checked_sub(1).and_then(ch);
        let next = ch(i + 1);
        let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
        // A minus sign opens a number after a space, not after a number ("1-100" is a range).
        let negative = matches!(c, '-' | '\u{2212}')
            && digit(next)
            && !prev.is_some_and(char::is_alphanumeric)
            && !matches!(cur.last().map(|t| &t.tok), Some(Tok::Num(_)));
        if c.is_ascii_digit() || negative {
            let mut j = if negative { i + 1 } else { i };
            let mut digits = String::new();
            if negative {
                digits.push('-');
            }
            let mut point = false;
            while j < cs.len() {
                let d = cs[j].1;
                if d.is_ascii_digit() {
                    digits.push(d);
                    j += 1;
                } else if d == ','
                    && (1..=3).all(|k| digit(ch(j + k)))
                    && !digit(ch(j + 4))
                    && !point
                {
                    // A thousands separator: `1,000`.
                    j += 1;
                } else if d == '.' && !point && digit(ch(j + 1)) {
                    point = true;
                    digits.push('.');
                    j += 1;
                } else {
                    break;
                }
            }
            if ch(j).is_some_and(|d| d.is_alphanumeric() || d == '_' || d == '%') {
                // `10mb`, `5s`, `100%`: a number with a unit of its own.
                while ch(j).is_some_and(|d| d.is_alphanumeric() || d == '_' || d == '%') {
                    j += 1;
                }
                let word = text[start..at(j)].to_lowercase();
                cur.push(Token {
                    tok: Tok::Word(word),
                    start,
                    end: at(j),
                });
            } else {
                let n = digits.parse().unwrap_or(f64::NAN);
                cur.push(Token {
                    tok: Tok::Num(n),
                    start,
                    end: at(j),
                });
            }
            i = j;
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let mut j = i;
            while let Some(d) = ch(j) {
                let apostrophe =
                    matches!(d, '\'' | '\u{2019}') && ch(j + 1).is_some_and(char::is_alphabetic);
                if d.is_alphanumeric() || d == '_' || apostrophe {
                    j += 1;
                } else {
                    break;
                }
            }
            let word = text[start..at(j)].to_lowercase().replace('\u{2019}', "'");
            cur.push(Token {
                tok: Tok::Word(word),
                start,
                end: at(j),
            });
            i = j;
            continue;
        }
        let closing = match c {
            '"' => Some('"'),
            '\u{201c}' => Some('\u{201d}'),
            '`' => Some('`'),
            '\'' | '\u{2018}' if !prev.is_some_and(char::is_alphanumeric) => {
                Some(if c == '\'' { '\'' } else { '\u{2019}' })
            }
            _ => None,
        };
        if let Some(close) = closing {
            let end = (i + 1..cs.len())
                .take_while(|&k| cs[k].1 != '\n')
                .find(|&k| cs[k].1 == close && !ch(k + 1).is_some_and(char::is_alphanumeric));
            if let Some(k) = end {
                cur.push(Token {
                    tok: Tok::Quoted(text[at(i + 1)..at(k)].to_string()),
                    start,
                    end: at(k + 1),
                });
                i = k + 1;
                continue;
            }
        }
        let two = |tok: Tok| Token {
            tok,
            start,
            end: at(i + 2),
        };
        // "e.g." and "i.e." end no sentence: a period after a one-letter word is an abbreviation's.
        let abbreviation = c == '.'
            && matches!(cur.last().map(|t| &t.tok), Some(Tok::Word(w)) if w.chars().count() == 1);
        match c {
            '.' | '!' | '?' | '\n'
                if c == '\n'
                    || (!abbreviation
                        && next.is_none_or(|n| n.is_whitespace() || "\"')`".contains(n))) =>
            {
                flush!();
                sentence += 1;
            }
            ',' | ';' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '\u{2014}' => flush!(),
            '<' if next == Some('=') => {
                cur.push(two(Tok::Le));
                i += 2;
                continue;
            }
            '>' if next == Some('=') => {
                cur.push(two(Tok::Ge));
                i += 2;
                continue;
            }
            _ => {
                let tok = match c {
                    '\u{2264}' => Tok::Le,
                    '\u{2265}' => Tok::Ge,
                    '-' | '\u{2013}' => Tok::Dash,
                    ':' => Tok::Colon,
                    '=' => Tok::Eq,
                    _ if c.is_whitespace() => {
                        i += 1;
                        continue;
                    }
                    _ => Tok::Other,
                };
                cur.push(Token {
                    tok,
                    start,
                    end: at(i + 1),
                });
            }
        }
        i += 1;
    }
    flush!();
    out
}

/// Words that negate what follows them in a clause.
const NEGATIONS: &[&str] = &["not", "no", "never", "nor", "without", "non", "neither"];

/// Words that make a clause relative: what it says is of another noun.
const RELATIVES: &[&str] = &["that", "which", "who", "whose", "whom", "where"];

/// Words that put a sentence under a condition: "required when `mode` is custom".
const CONDITIONS: &[&str] = &[
    "if",
    "when",
    "whenever",
    "unless",
    "only",
    "otherwise",
    "except",
    "depending",
    "depends",
];

/// Whether a word negates (`not`, `isn't`, `cannot`, ...).
fn negates(w: &str) -> bool {
    NEGATIONS.contains(&w) || w.ends_with("n't") || w == "cannot"
}

/// Whether the clause may say something of the parameter itself, plainly: no negation before
/// word `i`, no relative pronoun, no condition anywhere in its sentence (nor a sentence that
/// opens with "for": "For updates, required").
fn plain(c: &Clause, i: usize, all: &[Clause]) -> bool {
    let before_negated = c.tokens[..i]
        .iter()
        .any(|t| matches!(&t.tok, Tok::Word(w) if negates(w)));
    let relative = c.words().any(|w| RELATIVES.contains(&w));
    let mut sentence = all.iter().filter(|o| o.sentence == c.sentence);
    let opens_with_for = sentence
        .next()
        .and_then(|first| first.word(0))
        .is_some_and(|w| w == "for");
    let conditional = all
        .iter()
        .filter(|o| o.sentence == c.sentence)
        .any(|o| o.words().any(|w| CONDITIONS.contains(&w)));
    !before_negated && !relative && !conditional && !opens_with_for
}

/// Words that say a value must be present: "must be provided".
const PRESENCE: &[&str] = &[
    "provided",
    "given",
    "specified",
    "supplied",
    "set",
    "present",
    "included",
    "passed",
    "sent",
];

/// Words a clause may hold before "required" or "optional" and still speak of the parameter
/// itself ("this field is required"); any other word makes it of something else ("lower-level
/// divisions are optional", "Either `id` or `name` must be provided", "detail: required").
const SELF_WORDS: &[&str] = &[
    "this",
    "it",
    "its",
    "the",
    "field",
    "parameter",
    "param",
    "argument",
    "arg",
    "value",
    "input",
    "is",
    "be",
    "must",
    "always",
    "strictly",
    "also",
];

/// Whether the tokens of `c` before `upto` speak of the parameter itself: words of
/// [`SELF_WORDS`] or of the parameter's name, and marks of emphasis.
fn of_itself(c: &Clause, upto: usize, param: &Declared) -> bool {
    let own: Vec<String> = camel_words(param.name)
        .iter()
        .map(|w| singular(w))
        .collect();
    c.tokens[..upto].iter().all(|t| match &t.tok {
        Tok::Word(w) => SELF_WORDS.contains(&w.as_str()) || own.contains(&singular(w)),
        Tok::Other => true,
        _ => false,
    })
}

/// Whether clause `k` is the last of its sentence: "City (required)." says it of the
/// parameter; "- key (required): the project key" and "receiver (string, required), groupBy"
/// say it of a field the text goes on to describe, and "Required (at least one) for 'create'"
/// goes on to a condition.
fn ends_sentence(k: usize, all: &[Clause]) -> bool {
    all.get(k + 1)
        .is_none_or(|next| next.sentence != all[k].sentence)
}

/// Whether any sentence of the text is under a condition ("For \"update\" action, the field to
/// update. Required."): then a bare "required" or "optional" may be of one case alone.
fn conditional_anywhere(all: &[Clause]) -> bool {
    all.iter().enumerate().any(|(k, c)| {
        c.words().any(|w| CONDITIONS.contains(&w))
            || (c.word(0) == Some("for") && (k == 0 || all[k - 1].sentence != c.sentence))
    })
}

/// A clause that says the parameter is required: it ends with "required" or "mandatory"
/// ("(required)", "This field is required."), or with "must (always) be provided/given/...",
/// says it of the parameter itself ([`of_itself`]), ends its sentence ([`ends_sentence`]), and
/// no sentence of the text is under a condition (`conditional`, [`conditional_anywhere`] of the
/// whole text, read once).
fn says_required<'t>(
    k: usize,
    all: &[Clause],
    text: &'t str,
    param: &Declared,
    conditional: bool,
) -> Option<&'t str> {
    let c = &all[k];
    if !ends_sentence(k, all) || conditional {
        return None;
    }
    let last = c.tokens.len().checked_sub(1)?;
    let w = c.word(last)?;
    let hit = matches!(w, "required" | "mandatory")
        || (PRESENCE.contains(&w)
            && last >= 2
            && c.word(last - 1) == Some("be")
            && (c.word(last - 2) == Some("must")
                || (last >= 3
                    && c.word(last - 2) == Some("always")
                    && c.word(last - 3) == Some("must"))));
    (hit && of_itself(c, last, param) && plain(c, last, all)).then(|| c.quote(text, 0, last))
}

/// Phrases that say the parameter may be left out, wherever they are in a clause.
const OMITTED: &[&[&str]] = &[
    &["can", "be", "omitted"],
    &["may", "be", "omitted"],
    &["can", "be", "left", "out"],
    &["may", "be", "left", "out"],
    &["if", "omitted"],
    &["when", "omitted"],
    &["if", "absent"],
    &["when", "absent"],
];

/// A clause that says the parameter is optional: it ends with "optional" ("(optional)",
/// "Optional.", "this is optional") as [`says_required`] reads "required", or says, of the
/// parameter itself, that it can be omitted ("Can be omitted", "if omitted, all of them").
fn says_optional<'t>(
    k: usize,
    all: &[Clause],
    text: &'t str,
    param: &Declared,
    conditional: bool,
) -> Option<&'t str> {
    let c = &all[k];
    let last = c.tokens.len().checked_sub(1)?;
    if c.word(last) == Some("optional") {
        let plainly = ends_sentence(k, all)
            && !conditional
            && of_itself(c, last, param)
            && plain(c, last, all);
        return plainly.then(|| c.quote(text, 0, last));
    }
    let relative = c.words().any(|w| RELATIVES.contains(&w));
    let omitted = (0..c.tokens.len())
        .find(|&i| OMITTED.iter().any(|p| c.is_phrase(i, p)))
        .is_some_and(|i| of_itself(c, i, param));
    (omitted && !relative).then(|| c.quote(text, 0, last))
}

/// Units that scale a number, so it is not the declared figure unless the parameter's name
/// holds the unit (`timeout_seconds`, "up to 60 seconds").
const SCALES: &[&str] = &[
    "k",
    "thousand",
    "thousands",
    "million",
    "millions",
    "billion",
    "kb",
    "mb",
    "gb",
    "tb",
    "kib",
    "mib",
    "gib",
    "kilobytes",
    "megabytes",
    "gigabytes",
    "ms",
    "millisecond",
    "milliseconds",
    "s",
    "sec",
    "secs",
    "second",
    "seconds",
    "min",
    "mins",
    "minute",
    "minutes",
    "h",
    "hr",
    "hrs",
    "hour",
    "hours",
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "percent",
];

/// Units of a text's length.
const CHARS: &[&str] = &[
    "character",
    "characters",
    "char",
    "chars",
    "letter",
    "letters",
];

/// Counts of parts of a value that are not the value itself ("up to 6 digits").
const PARTS: &[&str] = &["digit", "digits", "word", "words", "line", "lines"];

/// Words that name a list's items whatever the list holds ("up to 20 items").
const ITEMS: &[&str] = &[
    "item", "items", "entry", "entries", "element", "elements", "value", "values",
];

/// Whether the word after the number at token `i` is a unit that scales it (and the parameter's
/// name does not hold the unit).
fn scaled(c: &Clause, i: usize, param: &Declared) -> bool {
    c.word(i + 1)
        .is_some_and(|unit| SCALES.contains(&unit) && !named(param, unit))
}

/// Whether the parameter's name holds `unit` (`timeout_seconds` and "seconds").
fn named(param: &Declared, unit: &str) -> bool {
    param
        .name
        .split('_')
        .any(|part| singular(part) == singular(unit))
}

/// Whether the number at token `i` counts what the parameter's bounds measure, by the word after
/// it.
fn measures(c: &Clause, i: usize, param: &Declared) -> bool {
    let Some(unit) = c.word(i + 1) else {
        return true;
    };
    if scaled(c, i, param) {
        return false;
    }
    let named = named(param, unit);
    match param.measure {
        Measure::Length => CHARS.contains(&unit) || named,
        // "1-100 blocks" in the text of `operations` counts blocks, not operations.
        Measure::Items => named || ITEMS.contains(&unit),
        Measure::Value => !CHARS.contains(&unit) && !PARTS.contains(&unit),
    }
}

/// Words between "default" and its value: "defaults to", "default value is", "default: 20".
const DEFAULT_GLUE: &[&str] = &["is", "to", "value", "of", "was", "will", "be", "set"];

/// Words a bare default may be that describe rather than name a value.
const DEFAULT_PROSE: &[&str] = &[
    "none", "nothing", "empty", "all", "any", "unset", "null", "blank", "current", "same",
];

/// The defaults a clause states, with their quotes: "defaults to 20", "default: \"celsius\"",
/// "(default 0)", "20 by default". A default under a condition ("unless", "otherwise") is none.
fn defaults_said<'t>(
    c: &Clause,
    all: &[Clause],
    text: &'t str,
    param: &Declared,
) -> Vec<(Literal, &'t str)> {
    let conditional = all.iter().filter(|o| o.sentence == c.sentence).any(|o| {
        o.words().any(|w| {
            matches!(
                w,
                "unless" | "otherwise" | "except" | "depending" | "depends"
            )
        })
    });
    if conditional {
        return Vec::new();
    }
    let value = |i: usize, last_only: bool| -> Option<Literal> {
        match &c.tokens.get(i)?.tok {
            Tok::Num(n) => (!scaled(c, i, param)).then_some(Literal::Number(*n)),
            Tok::Quoted(s) => Some(Literal::Text(s.clone())),
            Tok::Word(w) if w == "true" || w == "false" => Some(Literal::Bool(w == "true")),
            Tok::Word(w)
                if (!last_only || i + 1 == c.tokens.len())
                    && !DEFAULT_PROSE.contains(&w.as_str())
                    && !NEGATIONS.contains(&w.as_str()) =>
            {
                Some(Literal::Text(
                    text[c.tokens[i].start..c.tokens[i].end].to_string(),
                ))
            }
            _ => None,
        }
    };
    let mut out = Vec::new();
    for i in 0..c.tokens.len() {
        let Some(w) = c.word(i) else { continue };
        if w != "default" && w != "defaults" {
            continue;
        }
        let before = i.checked_sub(1).and_then(|p| c.word(p));
        if before.is_some_and(negates) {
            continue;
        }
        if before == Some("by") {
            // "20 by default".
            if let Some(v) = i.checked_sub(2).and_then(|p| value(p, false)) {
                if !matches!(v, Literal::Text(_)) || matches!(c.tokens[i - 2].tok, Tok::Quoted(_)) {
                    out.push((v, c.quote(text, i - 2, i)));
                }
            }
            continue;
        }
        let mut j = i + 1;
        while j < c.tokens.len()
            && j <= i + 3
            && (matches!(c.tokens[j].tok, Tok::Colon | Tok::Eq)
                || c.word(j).is_some_and(|w| DEFAULT_GLUE.contains(&w)))
        {
            j += 1;
        }
        // A bare word right after "default" is read as an adjective ("in their default
        // order"), not a value: a word needs a glue ("default: order", "defaults to order").
        let bare_word = j == i + 1 && matches!(c.tokens.get(j).map(|t| &t.tok), Some(Tok::Word(_)));
        match value(j, true) {
            Some(v) if !(bare_word && matches!(v, Literal::Text(_))) => {
                out.push((v, c.quote(text, i, j)));
            }
            _ => {}
        }
    }
    out
}

/// Whether a stated default is the declared one: `None` when they cannot be compared (a number
/// against a word).
fn same_value(declared: &Literal, said: &Literal) -> Option<bool> {
    match (declared, said) {
        (Literal::Number(a), Literal::Number(b)) => Some(close(*a, *b)),
        (Literal::Bool(a), Literal::Bool(b)) => Some(a == b),
        (Literal::Text(a), Literal::Text(b)) => Some(a.trim().eq_ignore_ascii_case(b.trim())),
        (Literal::Text(a), Literal::Number(b)) | (Literal::Number(b), Literal::Text(a)) => {
            a.trim().parse::<f64>().ok().map(|a| close(a, *b))
        }
        _ => None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Lower,
    Upper,
}

/// A bound the text states, with its quote.
#[derive(Debug)]
struct TextBound<'t> {
    side: Side,
    value: f64,
    quote: &'t str,
}

/// Phrases that put an upper bound on the number after them.
const UPPER: &[&[&str]] = &[
    &["up", "to"],
    &["at", "most"],
    &["max"],
    &["maximum"],
    &["no", "more", "than"],
    &["not", "more", "than"],
    &["less", "than", "or", "equal", "to"],
];

/// Phrases that put a lower bound on the number after them.
const LOWER: &[&[&str]] = &[
    &["at", "least"],
    &["min"],
    &["minimum"],
    &["no", "less", "than"],
    &["no", "fewer", "than"],
    &["not", "less", "than"],
    &["greater", "than", "or", "equal", "to"],
];

/// Both ends of a range the text states ("between 1 and 500", "1-100"), with its quote.
fn range<'t>(out: &mut Vec<TextBound<'t>>, lower: f64, upper: f64, quote: &'t str) {
    out.push(TextBound {
        side: Side::Lower,
        value: lower,
        quote,
    });
    out.push(TextBound {
        side: Side::Upper,
        value: upper,
        quote,
    });
}

/// The bounds a clause states: "between 1 and 500", "1-100", "1 to 100", "up to 1000",
/// "max 50", "at most 20", "at least 2", "min 1", "<= 10", "50 max".
fn bounds_said<'t>(c: &Clause, text: &'t str, param: &Declared) -> Vec<TextBound<'t>> {
    let mut out = Vec::new();
    let n = c.tokens.len();
    let dash_or_to = |i: usize| {
        matches!(c.tokens.get(i).map(|t| &t.tok), Some(Tok::Dash))
            || matches!(c.word(i), Some("to" | "through"))
    };
    let mut i = 0;
    while i < n {
        // "between A and B"
        if c.word(i) == Some("between") && c.word(i + 2) == Some("and") {
            if let (Some(a), Some(b)) = (c.num(i + 1), c.num(i + 3)) {
                if measures(c, i + 3, param) {
                    range(&mut out, a, b, c.quote(text, i, i + 3));
                }
                i += 4;
                continue;
            }
        }
        // "A-B", "A to B": not part of a date, a time or a version (`2024-01-31`, `10:00-12:00`),
        // which chain more marks.
        if let (Some(a), true, Some(b)) = (c.num(i), dash_or_to(i + 1), c.num(i + 2)) {
            let mark = |t: Option<&Token>| {
                matches!(
                    t.map(|t| &t.tok),
                    Some(Tok::Dash | Tok::Colon | Tok::Eq | Tok::Other)
                )
            };
            let chained = mark(c.tokens.get(i + 3)) || (i > 0 && mark(c.tokens.get(i - 1)));
            let after_bound = i > 0 && c.word(i - 1).is_some_and(|w| w == "to");
            if !chained && !after_bound && a <= b && measures(c, i + 2, param) {
                range(&mut out, a, b, c.quote(text, i, i + 2));
            }
            i += 3;
            continue;
        }
        // "up to N", "max N", "at least N", "<= N"
        let phrase = UPPER
            .iter()
            .map(|p| (Side::Upper, p.len(), c.is_phrase(i, p)))
            .chain(
                LOWER
                    .iter()
                    .map(|p| (Side::Lower, p.len(), c.is_phrase(i, p))),
            )
            .chain([
                (Side::Upper, 1, matches!(c.tokens[i].tok, Tok::Le)),
                (Side::Lower, 1, matches!(c.tokens[i].tok, Tok::Ge)),
            ])
            .find(|(_, _, hit)| *hit);
        if let Some((side, len, _)) = phrase {
            let negated = i > 0 && c.word(i - 1).is_some_and(negates);
            let mut j = i + len;
            while j < n
                && j < i + len + 2
                && (matches!(c.tokens[j].tok, Tok::Colon | Tok::Eq)
                    || matches!(c.word(j), Some("of" | "is")))
            {
                j += 1;
            }
            if let Some(v) = c.num(j) {
                // "up to 5-10" is a range of its own, not a bound.
                let ranged = dash_or_to(j + 1) && c.num(j + 2).is_some();
                if !negated && !ranged && measures(c, j, param) {
                    out.push(TextBound {
                        side,
                        value: v,
                        quote: c.quote(text, i, j),
                    });
                }
                i = j + 1;
                continue;
            }
        }
        // "50 max", "10 at most"
        if let Some(v) = c.num(i) {
            if matches!(c.word(i + 1), Some("max" | "maximum"))
                || c.is_phrase(i + 1, &["at", "most"])
            {
                let last = if c.word(i + 1) == Some("at") {
                    i + 2
                } else {
                    i + 1
                };
                out.push(TextBound {
                    side: Side::Upper,
                    value: v,
                    quote: c.quote(text, i, last),
                });
                i = last + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// The declared bound the text contradicts on one side, with the text's quote. A stated bound
/// agrees when it is the declared one (an exclusive bound may be stated as the first value in);
/// when any stated bound agrees, the others are taken to bound something else. With no bound
/// declared on that side, a stated one contradicts only a declared bound on the other side that
/// leaves no value ("up to 5" against `minimum = 10`).
fn bound_contradicted<'a, 't>(
    param: &'a Declared,
    side: Side,
    said: &[TextBound<'t>],
) -> Option<(&'a Bound, &'t str)> {
    let said: Vec<&TextBound> = said.iter().filter(|b| b.side == side).collect();
    let (own, other) = match side {
        Side::Lower => (&param.lower, &param.upper),
        Side::Upper => (&param.upper, &param.lower),
    };
    if let Some(own) = own {
        let step = match side {
            Side::Lower => 1.0,
            Side::Upper => -1.0,
        };
        // Within a declared bound, a type that narrows it may make the stated one right.
        let within = |v: f64| match side {
            Side::Lower => v >= own.value,
            Side::Upper => v <= own.value,
        };
        let agrees = |v: f64| {
            close(v, own.value)
                || (own.exclusive && param.integer && close(v, own.value + step))
                || (param.narrowed && within(v))
        };
        if said.iter().any(|b| agrees(b.value)) {
            return None;
        }
        return said.first().map(|b| (own, b.quote));
    }
    let other = other.as_ref()?;
    let empty = |v: f64| match side {
        Side::Upper if other.exclusive => v <= other.value,
        Side::Upper => v < other.value,
        Side::Lower if other.exclusive => v >= other.value,
        Side::Lower => v > other.value,
    };
    said.iter()
        .find(|b| empty(b.value))
        .map(|b| (other, b.quote))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn returned(names: &[&str], many: bool, description: &str) -> Option<String> {
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        // The shown type as the macro writes it: `Vec<Forecast>`.
        let shown = names.join("<") + &">".repeat(names.len() - 1);
        return_unstated(
            "get_forecast",
            description,
            &Returned {
                shown: &shown,
                names: &names,
                many,
            },
        )
        .map(|f| f.message)
    }

    #[test]
    fn type_words_skip_wrappers_and_split_names() {
        let words =
            |names: &[&str]| type_words(&names.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            words(&["Result", "Option", "ForecastReport"]),
            ["forecast", "report"]
        );
        assert_eq!(words(&["HashMap", "String", "Vec", "Order"]), ["order"]);
        assert_eq!(words(&["HTTPResponse"]), ["http", "response"]);
        assert_eq!(words(&["OfferOfTheDay"]), ["offer", "day"]);
        assert!(words(&["Vec", "String"]).is_empty());
        assert!(words(&["Value"]).is_empty());
        assert!(words(&["Json", "T"]).is_empty());
        assert!(words(&["u64"]).is_empty());
    }

    #[test]
    fn return_unstated_wants_a_cue_or_a_word_of_the_type() {
        // A statement of the result.
        assert_eq!(
            returned(&["Vec", "Forecast"], true, "Returns the sky."),
            None
        );
        assert_eq!(returned(&["Vec", "Forecast"], true, "Gets the sky."), None);
        // A word of the type, in any case and number, or inside an identifier.
        assert_eq!(
            returned(&["Vec", "Forecast"], true, "Forecasts of a city."),
            None
        );
        assert_eq!(
            returned(&["Vec", "Forecast"], true, "The FORECAST of a city."),
            None
        );
        assert_eq!(
            returned(
                &["Result", "Option", "ForecastReport"],
                false,
                "A `WeatherReport` for a city."
            ),
            None
        );
        assert_eq!(
            returned(&["Vec", "Entry"], true, "The entries of a log."),
            None
        );
        // Neither.
        let m = returned(&["Vec", "Forecast"], true, "Watches the sky over a city.").unwrap();
        assert_eq!(
            m,
            "`get_forecast` returns `Vec<Forecast>` but its description never says what comes back; say it, e.g. \"Returns the forecasts ...\""
        );
        let m = returned(&["ForecastReport"], false, "Watches the sky.").unwrap();
        assert!(m.contains("\"Returns the forecast report ...\""), "{m}");
        let m = returned(&["Vec", "Entry"], true, "Watches the log.").unwrap();
        assert!(m.contains("\"Returns the entries ...\""), "{m}");
        // A generic type: only a statement of the result counts, not the word "value" or "string".
        let m = returned(&["String"], false, "The string value of a city.").unwrap();
        assert!(m.contains("say what the value holds"), "{m}");
        assert_eq!(returned(&["String"], false, "Tells the weather."), None);
    }

    fn param(optional: bool, has_default: bool) -> Declared<'static> {
        Declared {
            name: "limit",
            ty: "u32",
            optional,
            has_default,
            default: None,
            measure: Measure::Value,
            integer: true,
            lower: None,
            upper: None,
            narrowed: false,
        }
    }

    fn said(p: &Declared, text: &str) -> Vec<String> {
        constraint_contradicted("search", p, text)
            .into_iter()
            .map(|f| {
                assert_eq!(f.rule, "constraint_contradicted");
                assert_eq!(
                    f.pointer,
                    format!("/inputSchema/properties/{}/description", p.name)
                );
                f.message
            })
            .collect()
    }

    #[test]
    fn an_optional_parameter_called_required() {
        let p = param(true, false);
        for text in [
            "How many results. Required.",
            "How many results (required).",
            "How many results; this field is required.",
            "How many results, mandatory",
            "How many results. It must be provided.",
            "How many results. It must always be given.",
        ] {
            let found = said(&p, text);
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert!(found[0].contains("is optional (`u32`)"), "{}", found[0]);
        }
        assert!(said(&param(false, true), "Required.")[0].contains("it has a `default`"));
        for text in [
            "How many results. Not required.",
            "How many results; it isn't required.",
            "How many results; never required.",
            "Required when `mode` is \"page\".",
            "Only required if paging.",
            "If paging, this is required.",
            "For paging, required.",
            "The number of fields that are required.",
            "Required fields first, e.g. 10.",
            "Must be provided as a whole number, e.g. 10.",
            "How many results; required fields are counted too",
        ] {
            assert!(said(&p, text).is_empty(), "{text}");
        }
        // A required parameter may say so.
        assert!(said(&param(false, false), "How many results. Required.").is_empty());
        // Said of something else: one of two, a field of the value, a case, a label.
        for text in [
            "How many results. Either `limit` or `page` must be provided.",
            "A JSON list of rows. Each row has:\n- key (required): the row key\n- note (optional): a note",
            "Settings. Fields: target (string, required), tags (list).",
            "Required (at least one) for 'create' and 'update'.",
            "For the \"update\" action, the field to change. Required.",
            "mode: required; the run to inspect",
        ] {
            assert!(said(&p, text).is_empty(), "{text}");
        }
    }

    #[test]
    fn a_required_parameter_called_optional() {
        let p = param(false, false);
        for text in [
            "How many results (optional).",
            "Optional. How many results.",
            "How many results; this is optional.",
            "How many results. Can be omitted.",
            "How many results; if omitted, all of them.",
            "How many results, may be left out",
        ] {
            let found = said(&p, text);
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert!(
                found[0].contains("is required (`u32`, no `default`)")
                    && found[0].contains("`Option<u32>`"),
                "{}",
                found[0]
            );
        }
        for text in [
            "How many results. Not optional.",
            "How many results; it is never optional.",
            "Optional fields to count, e.g. 3.",
            "How many of the optional fields.",
            "How many results. Cannot be omitted.",
            "The fields that can be omitted.",
            "Optional when paging.",
            "Regions to show; the smaller regions are optional.",
            "Rows, each with a key (required) and a note (optional): e.g. [{\"key\": 1}].",
        ] {
            assert!(said(&p, text).is_empty(), "{text}");
        }
        assert!(said(&param(true, false), "How many results (optional).").is_empty());
        assert!(said(&param(false, true), "How many results (optional).").is_empty());
    }

    #[test]
    fn a_default_stated_otherwise() {
        let mut p = param(false, true);
        p.default = Some(Literal::Number(20.0));
        for text in [
            "How many results. Defaults to 50.",
            "How many results (default 50).",
            "How many results; default: 50.",
            "How many results. The default is 50.",
            "How many results, default value 50.",
            "How many results, 50 by default.",
        ] {
            let found = said(&p, text);
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert!(
                found[0].contains("declared `default = 20`") && found[0].contains("50"),
                "{}",
                found[0]
            );
        }
        for text in [
            "How many results. Defaults to 20.",
            "How many results (default 20.0).",
            "How many results, 20 by default.",
            "How many results, e.g. 50. Default 20.",
            "How many results. No default of 50 applies.",
            "How many results; defaults to 50 unless paging.",
            "How many results; defaults to the page size.",
            "Page size, e.g. 50.",
            "How many results; the default timeout is 5 seconds.",
        ] {
            assert!(said(&p, text).is_empty(), "{text}: {:?}", said(&p, text));
        }
        p.default = Some(Literal::Text("celsius".into()));
        assert_eq!(said(&p, "The unit. Defaults to \"fahrenheit\".").len(), 1);
        assert_eq!(said(&p, "The unit; default: fahrenheit.").len(), 1);
        assert!(said(&p, "The unit. Defaults to \"Celsius\".").is_empty());
        assert!(said(&p, "The unit; default: celsius.").is_empty());
        assert!(said(&p, "The unit. Defaults to the user's locale.").is_empty());
        assert!(said(&p, "The unit. Default: none.").is_empty());
        p.default = Some(Literal::Number(0.0));
        assert!(said(&p, "Pages per call (0 for the default of 100).").is_empty());
        assert_eq!(said(&p, "Pages per call (default of 100).").len(), 1);
        p.default = Some(Literal::Text("celsius".into()));
        // "default" as an adjective names no value.
        assert!(said(&p, "The unit; if empty, units come in their default order.").is_empty());
        p.default = Some(Literal::Bool(true));
        assert_eq!(said(&p, "Whether to page. Default false.").len(), 1);
        assert!(said(&p, "Whether to page. Default true.").is_empty());
        assert!(said(&p, "Whether to page. Default: 10 pages.").is_empty());
    }

    fn bounded(
        lower: Option<(&'static str, f64)>,
        upper: Option<(&'static str, f64)>,
    ) -> Declared<'static> {
        let bound = |(key, value): (&'static str, f64)| Bound {
            key,
            value,
            exclusive: key.starts_with("exclusive"),
        };
        Declared {
            lower: lower.map(bound),
            upper: upper.map(bound),
            ..param(true, false)
        }
    }

    #[test]
    fn a_bound_stated_otherwise() {
        let p = bounded(Some(("minimum", 1.0)), Some(("maximum", 100.0)));
        for (text, key, quote) in [
            ("How many results, up to 500.", "maximum = 100", "up to 500"),
            (
                "How many results, between 1 and 500.",
                "maximum = 100",
                "between 1 and 500",
            ),
            ("How many results, 1-500.", "maximum = 100", "1-500"),
            (
                "How many results, 1 to 1,000.",
                "maximum = 100",
                "1 to 1,000",
            ),
            ("How many results (max 50).", "maximum = 100", "max 50"),
            (
                "How many results; at most 20.",
                "maximum = 100",
                "at most 20",
            ),
            ("How many results; at least 5.", "minimum = 1", "at least 5"),
            ("How many results; min: 0.", "minimum = 1", "min: 0"),
            ("How many results, <= 10.", "maximum = 100", "<= 10"),
            ("How many results, 200 max.", "maximum = 100", "200 max"),
        ] {
            let found = said(&p, text);
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert_eq!(
                found[0],
                format!("parameter `limit` is declared `{key}` but its description says \"{quote}\"; make them agree, in `#[arg]` or in the text (the model reads both)")
            );
        }
        assert_eq!(said(&p, "How many results, between 0 and 500.").len(), 2);
        for text in [
            "How many results, 1 to 100.",
            "How many results, between 1 and 100.",
            "How many results, up to 100; at most 10 pages.",
            "How many results, e.g. 50.",
            "How many results. Uses about 500 tokens.",
            "How many results; not more than 100.",
            "How many results, up to 5 seconds each.",
            "How many results, up to 6 digits.",
            "How many results; dated 2024-01-31.",
            "How many results, up to 10k.",
            "How many results, up to 50%.",
            "The 3-letter code, e.g. 200.",
        ] {
            assert!(said(&p, text).is_empty(), "{text}: {:?}", said(&p, text));
        }
        // Only the declared side is compared; the other side only where no value would be left.
        let max_only = bounded(None, Some(("maximum", 100.0)));
        assert!(said(&max_only, "How many results, at least 5.").is_empty());
        assert_eq!(said(&max_only, "How many results, at least 500.").len(), 1);
        let min_only = bounded(Some(("minimum", 10.0)), None);
        assert!(said(&min_only, "How many results, up to 500.").is_empty());
        assert_eq!(said(&min_only, "How many results, up to 5.").len(), 1);
        // No bounds declared: nothing to contradict.
        assert!(said(&bounded(None, None), "How many results, up to 500.").is_empty());
        // An exclusive bound stated as the first value in.
        let excl = bounded(
            Some(("exclusive_minimum", 0.0)),
            Some(("exclusive_maximum", 101.0)),
        );
        assert!(said(&excl, "How many results, 1 to 100.").is_empty());
        assert!(said(&excl, "How many results, up to 101.").is_empty());
        // Negative numbers.
        let lat = bounded(Some(("minimum", -90.0)), Some(("maximum", 90.0)));
        assert!(said(&lat, "Latitude, between -90 and 90.").is_empty());
        assert!(said(&lat, "Latitude, -90 to 90.").is_empty());
        assert_eq!(said(&lat, "Latitude, -180 to 180.").len(), 2);
        // A type that narrows the declared bounds (`NonZeroU8` under `minimum = -10, maximum =
        // 1000`): a stated bound within them may be the type's; one outside them is wrong.
        let volume = Declared {
            narrowed: true,
            ..bounded(Some(("minimum", -10.0)), Some(("maximum", 1000.0)))
        };
        assert!(said(&volume, "Volume from 1 to 255, e.g. 80.").is_empty());
        assert_eq!(said(&volume, "Volume, up to 2000.").len(), 1);
        assert_eq!(said(&volume, "Volume, -20 to 255.").len(), 1);
    }

    #[test]
    fn lengths_and_counts_are_read_with_their_units() {
        let text = Declared {
            measure: Measure::Length,
            ..bounded(None, Some(("max_length", 100.0)))
        };
        assert_eq!(said(&text, "A note, up to 500 characters.").len(), 1);
        assert_eq!(said(&text, "A note, up to 500.").len(), 1);
        assert!(said(&text, "A note, up to 100 characters.").is_empty());
        assert!(said(&text, "A note of up to 5 words.").is_empty());
        assert!(said(&text, "A note, up to 500 items.").is_empty());
        let list = Declared {
            name: "tags",
            measure: Measure::Items,
            ..bounded(None, Some(("max_items", 3.0)))
        };
        assert_eq!(said(&list, "Tags to match, up to 5 tags.").len(), 1);
        assert_eq!(said(&list, "Tags to match, up to 5 items.").len(), 1);
        // A count of something else the items hold or act on.
        assert!(said(&list, "Tags to match, each naming 1-100 posts.").is_empty());
        assert!(said(&list, "Tags to match, up to 3.").is_empty());
        assert!(said(&list, "Tags to match, each up to 20 characters.").is_empty());
        // A unit the name holds is the parameter's own.
        let secs = Declared {
            name: "timeout_seconds",
            ..bounded(None, Some(("maximum", 60.0)))
        };
        let found = constraint_contradicted("t", &secs, "How long to wait, up to 120 seconds.");
        assert_eq!(found.len(), 1);
        assert!(
            constraint_contradicted("t", &secs, "How long to wait, up to 60 seconds.").is_empty()
        );
    }

    #[test]
    fn the_repository_s_own_parameter_texts_pass() {
        // From examples/: the text and the declaration agree.
        let ms = Declared {
            name: "delay_ms",
            ..bounded(Some(("minimum", 0.0)), Some(("maximum", 60000.0)))
        };
        let text = "Milliseconds to wait before writing, 0 to 60000 (default 0): for trying a write that a dying server leaves unfinished.";
        assert!(constraint_contradicted("append_note", &ms, text).is_empty());
        let bytes = Declared {
            name: "max_bytes",
            ..bounded(Some(("minimum", 1.0)), Some(("maximum", 200000.0)))
        };
        let text = "Largest file size to read, in bytes, 1 to 200000. Default 8000.";
        assert!(constraint_contradicted("read_file", &bytes, text).is_empty());
        let path = Declared {
            name: "path",
            measure: Measure::Length,
            ..bounded(Some(("min_length", 1.0)), Some(("max_length", 4096.0)))
        };
        let text = "Folder or file to search, relative to the workspace root, e.g. \"notes\". Default: the whole workspace.";
        assert!(constraint_contradicted("search_text", &path, text).is_empty());
    }

    #[test]
    fn clauses_split_at_breaks_and_keep_numbers_whole() {
        let cs = clauses("Up to 1,000 (max 2.5). Then e.g. 3; done");
        let toks: Vec<Vec<Tok>> = cs
            .iter()
            .map(|c| c.tokens.iter().map(|t| t.tok.clone()).collect())
            .collect();
        assert_eq!(
            toks,
            vec![
                vec![
                    Tok::Word("up".into()),
                    Tok::Word("to".into()),
                    Tok::Num(1000.0)
                ],
                vec![Tok::Word("max".into()), Tok::Num(2.5)],
                vec![
                    Tok::Word("then".into()),
                    Tok::Word("e".into()),
                    Tok::Other,
                    Tok::Word("g".into()),
                    Tok::Other,
                    Tok::Num(3.0)
                ],
                vec![Tok::Word("done".into())],
            ]
        );
        assert_eq!(
            cs.iter().map(|c| c.sentence).collect::<Vec<_>>(),
            [0, 0, 1, 1]
        );
    }
}
