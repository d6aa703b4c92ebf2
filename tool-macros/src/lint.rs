//! The lint rules as the macro sees them.

const RULE_IDS: &[&str] = &[
    "name_budget",
    "param_name_budget",
    "description_budget",
    "param_description_budget",
    "name_style",
    "says_what_it_returns",
    "no_steering",
    "positive_framing",
    "described",
    "no_empty_enum",
    "readable_enum",
    "no_model_supplied_secrets",
    "hidden_text",
    "definition_budget",
];

pub fn is_rule(id: &str) -> bool {
    RULE_IDS.contains(&id)
}

pub fn rule_ids() -> Vec<&'static str> {
    RULE_IDS.to_vec()
}
