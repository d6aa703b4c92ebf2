//! Redaction of long text: 1 MiB of mixed prose (ASCII, accented Latin, CJK, emoji) with secrets
//! and look-alikes spread through it, through `Redactor::redact_str`.
//!
//! - `redactor`: the built-in redactor.
//! - `unicode_boundaries`: the same 18 patterns added as host patterns (which run as written,
//!   with Unicode word boundaries, and have no validators): how the built-in patterns ran before
//!   they took ASCII boundaries with a Unicode check per match.
//!
//! ```sh
//! cargo bench -p toolsmith-bench --features bench --bench redact -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use toolsmith::Redactor;

/// The built-in patterns as `toolsmith-core/src/redact.rs` lists them, in its order.
const PATTERNS: &[(&str, &str)] = &[
    (
        "private_key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)",
    ),
    ("anthropic_api_key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    (
        "openai_api_key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
    ),
    (
        "stripe_key",
        r"\b(?:(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}|whsec_[0-9A-Za-z]{24,})",
    ),
    ("aws_access_key_id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    (
        "aws_secret_access_key",
        r#"(?i:aws[ _.\-]?secret(?:[ _.\-]?access)?(?:[ _.\-]?key)?|secret[ _.\-]?access[ _.\-]?key)(?:\\?["'])?\s*(?:,?\s*(?:\\?["'])?(?i:value)(?:\\?["'])?\s*)?[=:]\s*(?:\\?["'])?(?P<secret>[A-Za-z0-9/+=]{40,})"#,
    ),
    (
        "github_token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
    ),
    ("slack_token", r"\b(?:xox[baprs]|xapp)-[A-Za-z0-9\-]{10,}"),
    (
        "slack_webhook",
        r"\bhooks\.slack\.com/services/(?P<secret>T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+)",
    ),
    ("gitlab_token", r"\bglpat-[A-Za-z0-9_\-]{20,}"),
    ("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    (
        "sendgrid_api_key",
        r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}",
    ),
    ("google_api_key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    (
        "bearer_token",
        r#"(?i:authorization)["']?\s*[:=]\s*["']?(?i:bearer)\s+(?P<secret>[A-Za-z0-9\-._~+/]+=*)"#,
    ),
    (
        "bearer_token",
        r"\b[Bb]earer\s+(?P<secret>[A-Za-z0-9\-._~+/]+=*)",
    ),
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{16,}",
    ),
    (
        "url_password",
        r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@]*:(?P<secret>[^\s@/]+)@",
    ),
    (
        "connection_string_password",
        r#"(?i:\b(?:password|pwd))\s*=\s*(?P<secret>"[^"]*"|'[^']*'|[^;&\s"']+)"#,
    ),
];

/// About 1 MiB: sentences in several scripts, with a secret or a look-alike every few lines.
fn mixed_text() -> String {
    let prose = [
        "The quarterly report lists 1,204 orders; the largest came from Zürich on 2024-03-05. ",
        "Café résumé naïve façade — déjà vu, señor, Ærøskøbing and Łódź are place names. ",
        "東京の天気は晴れ、気温は二十度です。データベースの更新は完了しました。 ",
        "Status ✅ deployed 🚀 to eu-west-1; build 7f3c9e1 passed 482 tests in 3.2 s. ",
        "Ticket ABC-1234: the sk-learn model and ghp-style names are not secrets at all. ",
    ];
    let secrets = [
        "key AKIAIOSFODNN7EXAMPLE here. ",
        "token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB done. ",
        "db postgres://app:hunter2@db.internal:5432/main ok. ",
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ",
        "éAKIAIOSFODNN7EXAMPLE is glued to a letter. ",
        "uuid 123e4567-e89b-12d3-a456-426614174000, sha 9b74c9897bac770ffc029102a200c5de. ",
    ];
    let mut text = String::with_capacity(1 << 20);
    let mut i = 0;
    while text.len() < 1 << 20 {
        text.push_str(prose[i % prose.len()]);
        if i % 7 == 3 {
            text.push_str(secrets[(i / 7) % secrets.len()]);
        }
        if i % 11 == 0 {
            text.push('\n');
        }
        i += 1;
    }
    text
}

fn bench_redact(c: &mut Criterion) {
    let text = mixed_text();
    let redactor = Redactor::new();
    let mut unicode = Redactor::empty();
    for (kind, pattern) in PATTERNS {
        unicode = unicode
            .try_with_pattern(*kind, pattern)
            .expect("the built-in patterns are valid");
    }
    // Not timed: both find the same secrets here (the look-alikes carry none of the forms the
    // validators rule out), so the bench compares the same work.
    let (a, na) = redactor.redact_str_counted(&text);
    let (b, nb) = unicode.redact_str_counted(&text);
    assert!(na > 100, "the text holds secrets");
    assert_eq!((na, a.as_ref()), (nb, b.as_ref()), "both redact the same");

    let mut group = c.benchmark_group("redact_1mib");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    group.bench_function("redactor", |b| {
        b.iter(|| black_box(redactor.redact_str_counted(black_box(&text)).1))
    });
    group.bench_function("unicode_boundaries", |b| {
        b.iter(|| black_box(unicode.redact_str_counted(black_box(&text)).1))
    });
    group.finish();
}

criterion_group!(benches, bench_redact);
criterion_main!(benches);
