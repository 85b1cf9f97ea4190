//! The provisioning order (`dayzero/provisioning-order.csv`, #45): waves by hop distance from the
//! OOB gateway over the management cabling, checked against a breadth-first walk of the build's
//! own `cabling.csv` (read here as CSV: `oob-uplink` and `mgmt` rows; the OOB switches are the
//! ends of the uplinks), and every switch with a management address in `addresses.csv` is in it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use railyard::dayzero::ProvisioningUrl;
use railyard::diag::{Diagnostics, SourceFile};

use crate::common::{example_outputs, file};

fn rows(text: &str) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let head = r.headers().expect("header").clone();
    r.records()
        .map(|rec| {
            let rec = rec.expect("row");
            head.iter()
                .map(str::to_owned)
                .zip(rec.iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

/// (wave, via) per device, walked from the gateway over `cabling.csv`.
fn walk(cabling: &str) -> BTreeMap<String, (usize, String)> {
    let cables = rows(cabling);
    let uplinks: Vec<_> = cables
        .iter()
        .filter(|c| c["tier"] == "oob-uplink")
        .collect();
    let oob: BTreeSet<&str> = uplinks
        .iter()
        .flat_map(|c| [c["a_device"].as_str(), c["b_device"].as_str()])
        .collect();
    let lower: BTreeSet<&str> = uplinks.iter().map(|c| c["a_device"].as_str()).collect();
    let gateway: Vec<&&str> = oob.iter().filter(|d| !lower.contains(**d)).collect();
    assert_eq!(gateway.len(), 1, "one device only above: the gateway");
    let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for c in cables
        .iter()
        .filter(|c| c["tier"] == "oob-uplink" || c["tier"] == "mgmt")
    {
        next.entry(&c["a_device"])
            .or_default()
            .insert(&c["b_device"]);
        next.entry(&c["b_device"])
            .or_default()
            .insert(&c["a_device"]);
    }
    let mut out = BTreeMap::from([(gateway[0].to_string(), (0, String::new()))]);
    let mut queue = VecDeque::from([*gateway[0]]);
    while let Some(at) = queue.pop_front() {
        if !oob.contains(at) {
            continue;
        }
        let w = out[at].0;
        for n in next.get(at).into_iter().flatten() {
            if !out.contains_key(*n) {
                out.insert(n.to_string(), (w + 1, at.to_owned()));
                queue.push_back(n);
            }
        }
    }
    out
}

#[test]
fn waves_follow_the_management_cabling_from_the_gateway() {
    for example in [
        "lab-small.yaml",
        "dgx-b200-16su.yaml",
        "gb300-nvl72-spectrum-x.yaml",
    ] {
        let built = example_outputs(example);
        let want = walk(&file(built, "cabling.csv"));
        let c = railyard::compile(&SourceFile::new(example, crate::common::inventory(example)));
        let design = c.design.expect("compiled");
        let mut diags = Diagnostics::default();
        let ids = railyard::dayzero::parse(
            &SourceFile::new("ids.csv", "name,serial\n"),
            &design.fabric,
            &mut diags,
        );
        let url = ProvisioningUrl::parse("http://192.0.2.10").expect("url");
        let files = railyard::dayzero::files(&design, &ids, Some(&url), &mut diags)
            .expect("written")
            .expect("built");
        let order = files
            .iter()
            .find(|f| f.path == "dayzero/provisioning-order.csv")
            .expect("order");
        let got = rows(std::str::from_utf8(&order.bytes).expect("utf-8"));
        let mut waves = Vec::new();
        for r in &got {
            let (wave, via) = &want[&r["device"]];
            assert_eq!(
                (r["wave"].parse::<usize>().expect("wave"), &r["via"]),
                (*wave, via),
                "{example} {}",
                r["device"]
            );
            waves.push(*wave);
        }
        assert!(waves.windows(2).all(|w| w[0] <= w[1]), "{example}: by wave");
        let listed: BTreeSet<&str> = got.iter().map(|r| r["device"].as_str()).collect();
        for a in rows(&file(built, "addresses.csv"))
            .iter()
            .filter(|a| a["purpose"] == "mgmt")
        {
            assert!(
                listed.contains(a["device"].as_str()),
                "{example}: {} has a wave",
                a["device"]
            );
        }
        assert!(
            waves.last().is_some_and(|w| *w >= 2),
            "{example}: switches behind OOB switches"
        );
    }
}
