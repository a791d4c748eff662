//! `--meta KEY=VALUE`, the user's own keys kept in an archive's metadata under `user`: one
//! parser and one metadata shape for every command that takes it (`nines run`, `nines curve`
//! through the run flags, `nines import`).

use serde_json::{Map, Value};

/// A `--meta` pair: a non-empty key without `=`, then the value (any text).
pub fn parse_meta(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!("'{s}' is not KEY=VALUE")),
    }
}

/// The archive metadata `--meta` gives: `{"user": {KEY: VALUE, ...}}` (a key given again:
/// its last value), none without it.
pub fn user_meta(pairs: &[(String, String)]) -> Map<String, Value> {
    let mut m = Map::new();
    add_user_meta(&mut m, pairs);
    m
}

/// Add the `--meta` pairs to the `user` keys a metadata object already has (an imported
/// archive's own): a key given replaces the key of that name, the others stay. A `user`
/// that is not an object (written by hand) is replaced. Without pairs, nothing changes.
pub fn add_user_meta(meta: &mut Map<String, Value>, pairs: &[(String, String)]) {
    if pairs.is_empty() {
        return;
    }
    let user = meta.entry("user").or_insert_with(|| Value::Object(Map::new()));
    if !user.is_object() {
        *user = Value::Object(Map::new());
    }
    let user = user.as_object_mut().expect("made an object above");
    for (k, v) in pairs {
        user.insert(k.clone(), Value::String(v.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn pairs_are_a_key_then_any_value() {
        assert_eq!(parse_meta("build=1234"), Ok(("build".into(), "1234".into())));
        assert_eq!(parse_meta(" kernel =6.8=rc1"), Ok(("kernel".into(), "6.8=rc1".into())));
        assert_eq!(parse_meta("empty="), Ok(("empty".into(), String::new())));
        for bad in ["build", "=1", " =1", ""] {
            assert_eq!(parse_meta(bad), Err(format!("'{bad}' is not KEY=VALUE")));
        }
    }

    #[test]
    fn given_keys_win_over_the_ones_kept() {
        let mut m = Map::new();
        m.insert("user".into(), json!({"build": "41", "site": "lab"}));
        add_user_meta(&mut m, &pairs(&[("build", "42"), ("kernel", "6.8")]));
        assert_eq!(m["user"], json!({"build": "42", "site": "lab", "kernel": "6.8"}));
        let mut odd = Map::new();
        odd.insert("user".into(), json!("by hand"));
        add_user_meta(&mut odd, &pairs(&[("build", "1")]));
        assert_eq!(odd["user"], json!({"build": "1"}));
        let mut kept = Map::new();
        kept.insert("user".into(), json!("by hand"));
        add_user_meta(&mut kept, &[]);
        assert_eq!(kept["user"], json!("by hand"));
        assert!(user_meta(&[]).is_empty());
    }
}
