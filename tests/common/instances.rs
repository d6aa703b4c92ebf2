//! The schema-driven generator of pseudo-random JSON instances: values shaped by a schema (its
//! types, bounds, lengths, patterns, enums, required properties, `$ref`s), mutated now and then
//! so both valid and invalid instances come out. `tests/it/differential.rs` feeds them to the
//! compiled validator and to `jsonschema`; any test comparing two judges of a schema can reuse it.

use serde_json::{json, Value};

/// A tiny xorshift64* generator (no rand crate): deterministic from its seed.
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

const PIECES: &[&str] = &[
    "a", "Z", "é", "🙂", "-", "1", "9", " ", "_", "TNT", "e\u{301}", "\n", "x", "A", "0",
];

/// Any JSON value, small.
pub fn random_value(rng: &mut XorShift, depth: u32) -> Value {
    match rng.below(if depth > 2 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 => json!(rng.below(21) as i64 - 10),
        3 => json!((rng.below(4001) as f64 - 2000.0) / 8.0),
        4 => random_string(rng, 6),
        5 => json!(*rng.pick(&[0.0, -0.0, 3.0, 1e300, 0.5, 255.0, 256.0])),
        6 => Value::Array(
            (0..rng.below(4))
                .map(|_| random_value(rng, depth + 1))
                .collect(),
        ),
        _ => {
            let mut m = serde_json::Map::new();
            for _ in 0..rng.below(3) {
                m.insert(
                    rng.pick(&["a", "kind", "name", "sku", "size"]).to_string(),
                    random_value(rng, depth + 1),
                );
            }
            Value::Object(m)
        }
    }
}

pub fn random_string(rng: &mut XorShift, max: u64) -> Value {
    let n = rng.below(max + 1);
    Value::String((0..n).map(|_| *rng.pick(PIECES)).collect())
}

fn number_near(
    rng: &mut XorShift,
    schema: &serde_json::Map<String, Value>,
    integer: bool,
) -> Value {
    let mut anchors: Vec<f64> = vec![0.0, 1.0, -1.0, 3.0];
    for k in [
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ] {
        if let Some(v) = schema.get(k).and_then(Value::as_f64) {
            anchors.push(v);
        }
    }
    let base = *rng.pick(&anchors);
    let delta = *rng.pick(&[0.0, 0.0, 1.0, -1.0, 0.5, -0.25, 0.01, 5.0, 0.75]);
    let x = base + delta;
    if integer && x.fract() == 0.0 && rng.chance(80) {
        if rng.chance(15) {
            json!(x) // as a float: 3.0
        } else {
            json!(x as i64)
        }
    } else {
        json!(x)
    }
}

/// A value shaped by `schema` (following `$ref`s into `root`), mutated now and then.
pub fn instance_for(rng: &mut XorShift, schema: &Value, root: &Value, depth: u32) -> Value {
    if depth > 6 || rng.chance(8) {
        return random_value(rng, depth);
    }
    let Some(obj) = schema.as_object() else {
        return random_value(rng, depth);
    };
    if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
        if let Some(target) = r.strip_prefix('#').and_then(|p| root.pointer(p)) {
            return instance_for(rng, target, root, depth + 1);
        }
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = obj.get(key) {
            let b = rng.pick(branches).clone();
            return instance_for(rng, &b, root, depth + 1);
        }
    }
    if let Some(c) = obj.get("const") {
        return c.clone();
    }
    if let Some(Value::Array(values)) = obj.get("enum") {
        return if rng.chance(85) {
            rng.pick(values).clone()
        } else {
            random_string(rng, 4)
        };
    }
    let ty = match obj.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => rng.pick(ts).as_str().unwrap_or("null").to_string(),
        _ => return random_value(rng, depth),
    };
    match ty.as_str() {
        "string" => {
            let max = obj.get("maxLength").and_then(Value::as_u64).unwrap_or(8) + 2;
            if obj.contains_key("pattern") && rng.chance(50) {
                json!(*rng.pick(&["TNT-12", "ABC-1", "tnt-1", "TNT-", "XYZ-999 "]))
            } else {
                random_string(rng, max)
            }
        }
        "integer" => number_near(rng, obj, true),
        "number" => number_near(rng, obj, false),
        "boolean" => Value::Bool(rng.chance(50)),
        "null" => Value::Null,
        "array" => {
            let max = obj.get("maxItems").and_then(Value::as_u64).unwrap_or(3) + 1;
            let n = rng.below(max + 1);
            let items = obj.get("items").cloned().unwrap_or(json!({}));
            let mut out: Vec<Value> = (0..n)
                .map(|_| instance_for(rng, &items, root, depth + 1))
                .collect();
            if out.len() > 1 && rng.chance(20) {
                let first = out[0].clone();
                out.push(first);
            }
            Value::Array(out)
        }
        "object" => {
            let mut m = serde_json::Map::new();
            let required = super::required_of(obj);
            if let Some(Value::Object(props)) = obj.get("properties") {
                for (name, s) in props {
                    let keep = if required.contains(&name.as_str()) {
                        93
                    } else {
                        50
                    };
                    if rng.chance(keep) {
                        m.insert(name.clone(), instance_for(rng, s, root, depth + 1));
                    }
                }
            }
            if rng.chance(7) {
                m.insert("unexpected".into(), random_value(rng, depth + 1));
            }
            Value::Object(m)
        }
        _ => random_value(rng, depth),
    }
}
