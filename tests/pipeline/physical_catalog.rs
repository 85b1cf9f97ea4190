//! The physical catalog (catalog/physical.yaml) checked against the vendor text it cites.
//!
//! Reads the YAML generically (serde_json::Value through serde-saphyr), not through the program's
//! catalog types, so a wrong figure cannot hide behind the parser that consumes it. Every rule
//! reports all offending parts at once. The fixtures are short quotations of public vendor pages
//! (tests/fixtures/physical/README.md lists them with their sources).

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const SECTIONS: [&str; 4] = ["modules", "assemblies", "fibres", "adapters"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures_dir() -> PathBuf {
    root().join("tests/fixtures/physical")
}

/// The sourced parts: `catalog/physical.yaml` (100G-PAM4), `catalog/physical-access.yaml`
/// (100G-and-slower, OOB and management) and `catalog/physical-xdr.yaml` (200G-PAM4), merged
/// section by section.
fn catalog() -> Value {
    let mut out = serde_json::json!({});
    for file in [
        "catalog/physical.yaml",
        "catalog/physical-access.yaml",
        "catalog/physical-xdr.yaml",
    ] {
        let text = std::fs::read_to_string(root().join(file)).expect("catalog file is readable");
        let v: Value = serde_saphyr::from_str(&text).expect("catalog file is valid YAML");
        for section in SECTIONS {
            if let Some(map) = v.get(section).and_then(Value::as_object) {
                let into = out
                    .as_object_mut()
                    .expect("object")
                    .entry(section)
                    .or_insert_with(|| serde_json::json!({}));
                for (k, e) in map {
                    into.as_object_mut()
                        .expect("object")
                        .insert(k.clone(), e.clone());
                }
            }
        }
    }
    out
}

/// Commodity cords ordered by specification (`catalog/physical-generic.yaml`): no vendor page
/// names them, so each must say so (`vendor: generic`), carry a `GEN-` key and name the
/// standard it is ordered by.
#[test]
fn generic_parts_are_marked_and_name_their_standard() {
    let text = std::fs::read_to_string(root().join("catalog/physical-generic.yaml"))
        .expect("catalog/physical-generic.yaml is readable");
    let v: Value = serde_saphyr::from_str(&text).expect("valid YAML");
    let mut problems = Vec::new();
    let mut n = 0;
    for section in SECTIONS {
        for (k, e) in v
            .get(section)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            n += 1;
            let source = e.get("source").and_then(Value::as_str).unwrap_or("");
            if e.get("vendor").and_then(Value::as_str) != Some("generic") || !k.starts_with("GEN-")
            {
                problems.push(format!("{k}: not marked generic"));
            }
            if !(source.contains("TIA") || source.contains("IEEE") || source.contains("IEC")) {
                problems.push(format!("{k}: names no standard ({source})"));
            }
        }
    }
    assert!(n >= 4, "the generic cords are missing");
    fail_on(problems);
}

/// Every part of the catalog as (section, key, entry), in file order per section.
fn parts(cat: &Value) -> Vec<(&'static str, String, Value)> {
    let mut out = Vec::new();
    for section in SECTIONS {
        let Some(map) = cat.get(section).and_then(Value::as_object) else {
            continue;
        };
        for (key, entry) in map {
            out.push((section, key.clone(), entry.clone()));
        }
    }
    out
}

/// Whitespace runs collapsed to one space: quotes span line breaks and table cells in the pages.
fn normalise(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

struct Fixture {
    source: Option<String>,
    has_provenance: bool,
    body: String,
}

fn read_fixture(name: &str) -> Option<Fixture> {
    // A fixture name is one plain file name: no directory part can be smuggled in from the YAML.
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
        && !name.starts_with('.');
    if !plain {
        return None;
    }
    let text = std::fs::read_to_string(fixtures_dir().join(name)).ok()?;
    let (header, body) = text.split_once("\n---\n")?;
    let field = |k: &str| {
        header
            .lines()
            .find_map(|l| l.strip_prefix(k).map(|v| v.trim().to_string()))
    };
    let source = field("Source:");
    let retrieved = field("Retrieved:");
    let licence = field("Licence:");
    let has_provenance = source.as_deref().is_some_and(|s| s.starts_with("https://"))
        && retrieved.as_deref().is_some_and(|r| r.contains(" via "))
        && licence.as_deref().is_some_and(|l| !l.is_empty());
    Some(Fixture {
        source,
        has_provenance,
        body: normalise(body),
    })
}

struct Quote {
    file: String,
    text: String,
}

fn quotes(entry: &Value) -> Vec<Quote> {
    entry
        .get("evidence")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|q| Quote {
                    file: q
                        .get("file")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    text: normalise(q.get("quote").and_then(Value::as_str).unwrap_or("")),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The sold lengths of an assembly or fibre as (metres, part number).
fn lengths(entry: &Value) -> Vec<(f64, String)> {
    let list = entry.get("lengths").and_then(Value::as_array);
    list.into_iter()
        .flatten()
        .map(|len| {
            let m = len.get("m").and_then(Value::as_f64).unwrap_or(f64::NAN);
            let part = len.get("part").and_then(Value::as_str).unwrap_or("");
            (m, part.to_string())
        })
        .collect()
}

/// Runs one rule over every part of the catalog and fails with every problem it reports.
fn check_each_part(rule: impl Fn(&str, &str, &Value, &mut Vec<String>)) {
    let cat = catalog();
    let mut problems = Vec::new();
    for (section, key, entry) in parts(&cat) {
        rule(section, &key, &entry, &mut problems);
    }
    fail_on(problems);
}

/// Decimal numbers written in a text ("2-3-meters" gives 2 and 3, "5.0" gives 5).
fn numbers(text: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let decimal_point = c == '.'
            && !current.is_empty()
            && !current.contains('.')
            && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if c.is_ascii_digit() || decimal_point {
            current.push(c);
        } else if !current.is_empty() {
            out.extend(current.parse::<f64>().ok());
            current.clear();
        }
    }
    out.extend(current.parse::<f64>().ok());
    out
}

fn mentions_number(texts: &[&str], value: f64) -> bool {
    texts
        .iter()
        .any(|t| numbers(t).iter().any(|n| (n - value).abs() < 1e-9))
}

/// NVIDIA's length code in LinkX part numbers: whole metres as three digits (3 m -> 003), a
/// half metre as two digits and "A" (1.5 m -> 01A). Checked against the ordering tables below.
fn nvidia_length_code(m: f64) -> Option<String> {
    let whole = m.trunc();
    let frac = m - whole;
    if !(0.0..1000.0).contains(&m) {
        return None;
    }
    if frac.abs() < 1e-9 {
        Some(format!("{:03}", whole as u32))
    } else if (frac - 0.5).abs() < 1e-9 && whole < 100.0 {
        Some(format!("{:02}A", whole as u32))
    } else {
        None
    }
}

fn fail_on(problems: Vec<String>) {
    assert!(
        problems.is_empty(),
        "{} problem(s):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

#[test]
fn every_quote_is_in_its_fixture_and_every_fixture_has_provenance() {
    check_each_part(|section, key, entry, problems| {
        let qs = quotes(entry);
        if qs.is_empty() {
            problems.push(format!("{section}.{key}: no evidence"));
        }
        for q in qs {
            let problem = match read_fixture(&q.file) {
                None => "fixture missing, unreadable or without a header",
                Some(f) if !f.has_provenance => "fixture lacks Source: https / Retrieved / Licence",
                Some(f) if q.text.is_empty() || !f.body.contains(&q.text) => "quote not found",
                Some(_) => continue,
            };
            problems.push(format!(
                "{section}.{key}: {}: {problem}: {:?}",
                q.file, q.text
            ));
        }
    });
}

/// The key and every ordered part number is vendor text: either quoted literally, or built by a
/// rule whose pieces are quoted (`pn_basis`: base part + documented suffix; `pn_rule`: family
/// with NVIDIA's length code).
#[test]
fn every_part_number_is_in_its_quotes() {
    check_each_part(|section, key, entry, problems| {
        let qs = quotes(entry);
        let quoted = |s: &str| qs.iter().any(|q| q.text.contains(s));
        let mut bad = |what: String| problems.push(format!("{section}.{key}: {what}"));
        match entry.get("pn_basis") {
            Some(basis) => {
                let base = basis.get("base").and_then(Value::as_str).unwrap_or("");
                let suffix = basis.get("suffix").and_then(Value::as_str).unwrap_or("");
                if format!("{base}{suffix}") != key {
                    bad(format!("pn_basis {base}+{suffix} is not the key"));
                }
                for piece in [base, suffix] {
                    if piece.is_empty() || !quoted(piece) {
                        bad(format!("pn_basis piece {piece:?} not quoted"));
                    }
                }
            }
            None if !quoted(key) => bad("key not in its quotes".to_string()),
            None => {}
        }
        let family = entry
            .get("pn_rule")
            .and_then(|r| r.get("family"))
            .and_then(Value::as_str);
        if let Some(family) = family
            && (!family.contains("xxx") || !quoted(family))
        {
            bad(format!("pn_rule family {family:?} not quoted"));
        }
        for (m, part) in lengths(entry) {
            let ok = match family {
                Some(family) => nvidia_length_code(m)
                    .is_some_and(|code| family.replacen("xxx", &code, 1) == part),
                None => !part.is_empty() && quoted(&part),
            };
            if !ok {
                bad(format!("length {m} m part {part:?} not evidenced"));
            }
        }
    });
}

/// Reach, fibre length limit, power and (for rule-built part numbers) every sold length are
/// figures the quotes state.
#[test]
fn reach_power_and_lengths_are_quoted_figures() {
    check_each_part(|section, key, entry, problems| {
        let qs = quotes(entry);
        let texts: Vec<&str> = qs.iter().map(|q| q.text.as_str()).collect();
        for field in ["reach_m", "max_m", "power_w"] {
            let value = entry.get(field).map(|v| v.as_f64().unwrap_or(f64::NAN));
            if let Some(value) = value
                && !mentions_number(&texts, value)
            {
                problems.push(format!(
                    "{section}.{key}: {field} {value} not in its quotes"
                ));
            }
        }
        if entry.get("pn_rule").is_none() {
            return;
        }
        let length_texts: Vec<&str> = texts
            .iter()
            .copied()
            .filter(|t| {
                let l = t.to_lowercase();
                l.contains("length") || l.contains("meter")
            })
            .collect();
        for (m, _) in lengths(entry) {
            if !mentions_number(&length_texts, m) {
                problems.push(format!("{section}.{key}: sold length {m} m not quoted"));
            }
        }
    });
}

/// The length code used by `pn_rule` agrees with every row of NVIDIA's ordering tables kept as
/// fixtures: "MCP7Y00-N01A … 1.5m", "MFS1S50-V005E … 5m".
#[test]
fn nvidia_length_code_matches_the_ordering_tables() {
    let tables = [
        ("nvidia-mcp7y00-ordering.txt", "MCP7Y00-N"),
        ("nvidia-mfs1s50-ordering.txt", "MFS1S50-V"),
    ];
    let mut rows = 0;
    let mut problems = Vec::new();
    for (file, prefix) in tables {
        let text = std::fs::read_to_string(fixtures_dir().join(file)).expect("ordering fixture");
        let body = text.split_once("\n---\n").map(|(_, b)| b).unwrap_or("");
        // A row starts at the part number and ends with the length ("…, 1.5m" / "…, 1m, flat top").
        for row in body.split(prefix).skip(1) {
            let row = normalise(row);
            let code: String = row.chars().take(3).collect();
            let Some(metres) = row
                .split(", ")
                .find_map(|cell| cell.strip_suffix('m').and_then(|n| n.parse::<f64>().ok()))
            else {
                continue;
            };
            rows += 1;
            if nvidia_length_code(metres).as_deref() != Some(code.as_str()) {
                problems.push(format!("{file}: {prefix}{code} is {metres} m"));
            }
        }
    }
    assert!(
        rows >= 10,
        "expected the ordering tables' rows, found {rows}"
    );
    fail_on(problems);
}

#[test]
fn sources_are_https_urls_or_repository_paths() {
    check_each_part(|section, key, entry, problems| {
        let source = entry.get("source").and_then(Value::as_str).unwrap_or("");
        let url = source.starts_with("https://") && !source.contains(char::is_whitespace);
        // "owner/repo path/in/repo": a repository and a file in it.
        let repo_path = source.split_once(' ').is_some_and(|(repo, path)| {
            repo.matches('/').count() == 1 && !path.is_empty() && !path.contains("..")
        });
        if !(url || repo_path) {
            problems.push(format!("{section}.{key}: source {source:?}"));
        }
    });
}

#[test]
fn no_part_number_appears_twice() {
    let seen = std::cell::RefCell::new(BTreeMap::<String, String>::new());
    check_each_part(|section, key, entry, problems| {
        let here = format!("{section}.{key}");
        let numbers =
            std::iter::once(key.to_string()).chain(lengths(entry).into_iter().map(|l| l.1));
        for pn in numbers {
            if let Some(first) = seen.borrow_mut().insert(pn.clone(), here.clone()) {
                problems.push(format!("{pn}: in {first} and {here}"));
            }
        }
    });
}

/// Field values come from the schema's vocabulary, and the shapes are self-consistent: an
/// assembly carries as many lanes at B as at A, a splitter fibre has two or more legs.
#[test]
fn fields_use_the_schema_vocabulary_and_add_up() {
    let forms = [
        "osfp", "qsfp112", "qsfp-dd", "qsfp56", "qsfp28", "sfp28", "sfp-plus", "rj45",
    ];
    let tops = ["finned", "flat", "none"];
    let rates = [
        "200G-PAM4",
        "100G-PAM4",
        "50G-PAM4",
        "25G-NRZ",
        "10G-NRZ",
        "1G",
    ];
    let connectors = ["mpo12-apc", "mpo12-upc", "lc-upc", "rj45"];
    let str_of = |e: &Value, f: &str| e.get(f).and_then(Value::as_str).unwrap_or("").to_string();
    let num_of = |e: &Value, f: &str| e.get(f).and_then(Value::as_u64).unwrap_or(0);
    check_each_part(|section, key, e, problems| {
        let mut bad = |what: String| problems.push(format!("{section}.{key}: {what}"));
        for r in e
            .get("lane_rates")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !rates.contains(&r.as_str().unwrap_or("")) {
                bad(format!("lane rate {r}"));
            }
        }
        match section {
            "modules" => {
                if !forms.contains(&str_of(e, "form").as_str()) {
                    bad(format!("form {}", str_of(e, "form")));
                }
                let top = str_of(e, "top");
                let osfp = str_of(e, "form") == "osfp";
                if !tops.contains(&top.as_str()) || osfp == (top == "none") {
                    bad(format!("top {top} for form {}", str_of(e, "form")));
                }
                if !["switch", "nic", "any"].contains(&str_of(e, "fits").as_str()) {
                    bad(format!("fits {}", str_of(e, "fits")));
                }
                if !connectors.contains(&str_of(e, "connector").as_str()) {
                    bad(format!("connector {}", str_of(e, "connector")));
                }
                let (lanes, min) = (num_of(e, "lanes"), num_of(e, "min_lanes"));
                if num_of(e, "ports") == 0 || lanes == 0 || min == 0 || min > lanes {
                    bad(format!(
                        "ports/lanes/min_lanes {}/{lanes}/{min}",
                        num_of(e, "ports")
                    ));
                }
            }
            "assemblies" => {
                let (a, b) = (&e["a"], &e["b"]);
                for end in [a, b] {
                    if !forms.contains(&str_of(end, "form").as_str()) {
                        bad(format!("end form {}", str_of(end, "form")));
                    }
                }
                let b_lanes =
                    num_of(b, "lanes") * b.get("count").and_then(Value::as_u64).unwrap_or(1);
                if num_of(a, "lanes") == 0 || num_of(a, "lanes") != b_lanes {
                    bad(format!("A has {} lanes, B {b_lanes}", num_of(a, "lanes")));
                }
                if !["dac", "acc", "aoc", "utp"].contains(&str_of(e, "kind").as_str()) {
                    bad(format!("kind {}", str_of(e, "kind")));
                }
            }
            "adapters" => {
                for f in ["host_form", "module_form"] {
                    if !forms.contains(&str_of(e, f).as_str()) {
                        bad(format!("{f} {}", str_of(e, f)));
                    }
                }
            }
            _ => {
                let legs = num_of(e, "legs");
                let splitter = str_of(e, "kind") == "splitter";
                if legs == 0 || splitter != (legs > 1) || num_of(e, "lanes_per_leg") == 0 {
                    bad(format!("kind {} with {legs} legs", str_of(e, "kind")));
                }
                if !connectors.contains(&str_of(e, "connector").as_str()) {
                    bad(format!("connector {}", str_of(e, "connector")));
                }
            }
        }
    });
}

#[test]
fn fixtures_readme_lists_every_fixture_with_its_source() {
    let dir = fixtures_dir();
    let readme = ["README.md", "README-access.md"]
        .iter()
        .map(|r| std::fs::read_to_string(dir.join(r)).expect("fixtures README"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut problems = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("fixtures dir")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| Path::new(n).extension().is_some_and(|x| x == "txt"))
        .collect();
    names.sort();
    for name in names {
        match read_fixture(&name) {
            Some(f) if f.has_provenance => {
                let source = f.source.unwrap_or_default();
                let url = source.split_whitespace().next().unwrap_or("");
                if !readme.contains(&name) || !readme.contains(url) {
                    problems.push(format!("README.md does not list {name} with {url}"));
                }
            }
            _ => problems.push(format!("{name}: no provenance header")),
        }
    }
    fail_on(problems);
}

/// An adapter passes exactly the lane rates its page lists as supported link modes: NVIDIA's
/// MAM1Q00A-QSA28 memory map "b0: 10Gbd NRZ / SDR-QDR, supported … b2: 25Gbd NRZ / EDR,
/// supported b3: 25Gbd PAM4 / HDR, not supported" gives 10G-NRZ and 25G-NRZ, never a PAM4 rate.
#[test]
fn adapter_lane_rates_are_the_link_modes_its_page_supports() {
    let cat = catalog();
    let adapters = cat.get("adapters").and_then(Value::as_object);
    let mut problems = Vec::new();
    let mut n = 0;
    for (key, e) in adapters.into_iter().flatten() {
        n += 1;
        let text: String = quotes(e).into_iter().map(|q| q.text + " ").collect();
        // "<rate>Gbd <modulation> / <name>, supported" (and not "not supported").
        let supported = |rate: &str, modulation: &str| {
            let pat = format!("{rate}Gbd {modulation} / ");
            text.match_indices(&pat).any(|(at, _)| {
                let seg = text[at + pat.len()..].split(" b").next().unwrap_or("");
                seg.trim_end().ends_with(", supported") && !seg.contains("not")
            })
        };
        for r in e
            .get("lane_rates")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let r = r.as_str().unwrap_or("");
            let (rate, modulation) = r.split_once("G-").unwrap_or((r, ""));
            if !supported(rate, modulation) {
                problems.push(format!(
                    "adapters.{key}: {r} is not a supported link mode in its quotes"
                ));
            }
        }
    }
    assert!(n >= 1, "the QSA adapter is missing");
    fail_on(problems);
}

/// Every part says what its number rests on (issue #42), and says it truly: a `vendor` part's
/// quotes are from fixtures whose source is the vendor's own site (docs.nvidia.com, the
/// vendor's community or repository pages), a `third-party` part cites at least one fixture that
/// declares itself `Kind: third-party`, a generic cord is `specification`.
#[test]
fn every_part_states_its_source_kind_and_its_fixtures_agree() {
    let mut problems = Vec::new();
    let mut third = 0;
    check_each_part(|section, key, entry, problems| {
        let kind = entry
            .get("source_kind")
            .and_then(Value::as_str)
            .unwrap_or("");
        let qs = quotes(entry);
        let third_party_fixture = |f: &str| {
            std::fs::read_to_string(fixtures_dir().join(f))
                .ok()
                .and_then(|t| t.split_once("\n---\n").map(|(h, _)| h.to_string()))
                .is_some_and(|h| h.lines().any(|l| l.trim() == "Kind: third-party"))
        };
        // The part number (or the base it is built on) in a quote of a vendor fixture.
        let base = entry
            .get("pn_basis")
            .and_then(|b| b.get("base"))
            .and_then(Value::as_str)
            .unwrap_or(key);
        let vendor_names_it = qs
            .iter()
            .any(|q| !third_party_fixture(&q.file) && q.text.contains(base));
        let ok = match kind {
            "vendor" | "vendor-text" => vendor_names_it,
            "third-party" => !vendor_names_it && qs.iter().any(|q| third_party_fixture(&q.file)),
            _ => false,
        };
        if !ok {
            let files: Vec<&str> = qs.iter().map(|q| q.file.as_str()).collect();
            problems.push(format!(
                "{section}.{key}: source_kind {kind:?} with quotes from {files:?}"
            ));
        }
    });
    // The rule above runs on every sourced part; count the third-party ones it passed.
    let cat = catalog();
    for (_, _, e) in parts(&cat) {
        if e.get("source_kind").and_then(Value::as_str) == Some("third-party") {
            third += 1;
        }
    }
    assert!(third >= 4, "the XDR parts rest on a third-party listing");
    let text = std::fs::read_to_string(root().join("catalog/physical-generic.yaml"))
        .expect("catalog/physical-generic.yaml is readable");
    let v: Value = serde_saphyr::from_str(&text).expect("valid YAML");
    for (section, key, e) in parts(&v) {
        if e.get("source_kind").and_then(Value::as_str) != Some("specification") {
            problems.push(format!(
                "{section}.{key}: a generic cord is `specification`"
            ));
        }
    }
    fail_on(problems);
}

/// `docs/physical.md` lists every built-in part with its source kind and source, as the catalog
/// files say (a part added without a docs row, or a kind changed in one place only, fails).
#[test]
fn the_docs_table_lists_every_part_with_its_source_kind() {
    let docs = std::fs::read_to_string(root().join("docs/physical.md")).expect("docs/physical.md");
    let rows: BTreeMap<String, (String, String)> = docs
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let key = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((
                key.to_string(),
                (cells.get(4)?.to_string(), cells.get(5)?.to_string()),
            ))
        })
        .collect();
    let mut problems = Vec::new();
    let mut all = catalog();
    let generic: Value = serde_saphyr::from_str(
        &std::fs::read_to_string(root().join("catalog/physical-generic.yaml")).expect("generic"),
    )
    .expect("valid YAML");
    for section in SECTIONS {
        if let Some(map) = generic.get(section).and_then(Value::as_object) {
            for (k, e) in map {
                all[section]
                    .as_object_mut()
                    .expect("section")
                    .insert(k.clone(), e.clone());
            }
        }
    }
    let mut n = 0;
    for (section, key, e) in parts(&all) {
        n += 1;
        let kind = e.get("source_kind").and_then(Value::as_str).unwrap_or("");
        let source = e.get("source").and_then(Value::as_str).unwrap_or("");
        match rows.get(&key) {
            Some((k, s)) if k == kind && s == source => {}
            other => problems.push(format!(
                "{section}.{key}: docs row {other:?}, catalog ({kind}, {source})"
            )),
        }
    }
    assert!(n >= 35, "{n} parts");
    fail_on(problems);
}
