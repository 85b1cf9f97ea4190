//! Canonical lines of a configuration tree (NVUE `startup.yaml`, SONiC `config_db.json`):
//! one line per leaf, keys joined by ` > `, then ` = value` (`interface > swp1 > link > mtu =
//! 9216`); an empty map is a leaf `= {}` (NVUE writes `10.0.0.1/32: {}` for an address). Order of
//! keys never matters; list items are keyed by position (`[0]`).

use std::collections::BTreeSet;

use serde_json::Value;

/// The canonical lines of `v`.
pub fn lines(v: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    walk(v, &mut Vec::new(), &mut out);
    out
}

fn walk(v: &Value, path: &mut Vec<String>, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, x) in m {
                path.push(k.clone());
                walk(x, path, out);
                path.pop();
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for (i, x) in a.iter().enumerate() {
                path.push(format!("[{i}]"));
                walk(x, path, out);
                path.pop();
            }
        }
        leaf => {
            let value = match leaf {
                Value::Object(_) => "{}".to_string(),
                Value::Array(_) => "[]".to_string(),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            out.insert(format!("{} = {value}", path.join(" > ")));
        }
    }
}

/// NVUE's `startup.yaml`: a list of `- header:` / `- set:` items; the config is the merge of the
/// `set` maps (the header carries revision metadata, not configuration).
pub fn nvue_config(doc: &Value) -> Value {
    let mut merged = serde_json::Map::new();
    match doc {
        Value::Array(items) => {
            for item in items {
                if let Some(Value::Object(set)) = item.get("set") {
                    for (k, v) in set {
                        merged.insert(k.clone(), v.clone());
                    }
                }
            }
            Value::Object(merged)
        }
        // `nv config show -o yaml` prints the tree itself.
        other => other.clone(),
    }
}

/// (keys, value) of a canonical line `a > b > c = v`.
pub fn split(line: &str) -> (Vec<&str>, &str) {
    let (path, value) = line.split_once(" = ").unwrap_or((line, ""));
    (path.split(" > ").collect(), value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn leaves_and_empty_maps() {
        let v = json!({"interface": {"swp1": {"link": {"mtu": 9216}, "ipv4": {"address": {"10.0.0.1/31": {}}}}}});
        let l: Vec<String> = lines(&v).into_iter().collect();
        assert_eq!(
            l,
            vec![
                "interface > swp1 > ipv4 > address > 10.0.0.1/31 = {}",
                "interface > swp1 > link > mtu = 9216",
            ]
        );
        let startup = json!([{"header": {"rev-id": 3}}, {"set": {"system": {"hostname": "a"}}}]);
        assert_eq!(nvue_config(&startup), json!({"system": {"hostname": "a"}}));
    }
}
