//! The management network's DHCP server configuration (`dayzero/kea-dhcp4.json`, #45 item 2):
//! every example, built with generated identities (one MAC per switch of the build's own
//! `addresses.csv`, read here as CSV), gives a configuration real ISC Kea accepts
//! (`kea-dhcp4 -t`), with each switch's planned address, its subnet's gateway as the router and
//! its ZTP option; serial-only identities are reserved by client id on Cumulus Linux only; a
//! duplicate reservation is refused by railyard (and, shown on the same file, would be by Kea).

use std::path::Path;

use railyard::dayzero::{Identities, Identity, Mac, ProvisioningUrl};
use railyard::diag::{Diagnostics, SourceFile, Span};
use railyard::output::{OutputGroup, Selection};
use serde_json::Value;

use crate::common::railyard_in;
use crate::prereq;

const URL: &str = "http://192.0.2.10/ztp/";

/// A management row of `addresses.csv`: device, address, gateway, VLAN.
struct Planned {
    device: String,
    address: String,
    gateway: String,
    vlan: u64,
}

/// The switches' management rows (`purpose` `mgmt`, with a gateway and VLAN in `peer`).
fn planned(addresses: &str) -> Vec<Planned> {
    let mut r = csv::Reader::from_reader(addresses.as_bytes());
    let head = r.headers().expect("header").clone();
    let col = |n: &str| head.iter().position(|h| h == n).expect("column");
    let (device, address, purpose, peer) =
        (col("device"), col("address"), col("purpose"), col("peer"));
    r.records()
        .map(|rec| rec.expect("row"))
        .filter(|rec| &rec[purpose] == "mgmt")
        .map(|rec| {
            let words: Vec<&str> = rec[peer].split(' ').collect();
            assert_eq!((words[0], words[2]), ("gateway", "vlan"), "{:?}", &rec);
            Planned {
                device: rec[device].to_owned(),
                address: rec[address].split('/').next().expect("address").to_owned(),
                gateway: words[1].to_owned(),
                vlan: words[3].parse().expect("vlan"),
            }
        })
        .collect()
}

/// A locally administered MAC per switch, in row order.
fn mac(i: usize) -> String {
    format!(
        "02:00:00:{:02x}:{:02x}:{:02x}",
        i >> 16,
        (i >> 8) & 255,
        i & 255
    )
}

/// The example compiled, its management rows, and the Kea configuration built from identities
/// written as an operator would (`name,mac_address`); `diags` holds the refusals.
fn build(
    example: &str,
    ids_csv: impl Fn(&[Planned]) -> String,
) -> (Vec<Planned>, Option<Vec<u8>>, Diagnostics) {
    let c = railyard::compile(&SourceFile::new(example, crate::common::inventory(example)));
    let files = c
        .outputs_only(
            &railyard::render::Templates::default(),
            &Selection::of(&[OutputGroup::Addresses]),
        )
        .expect("compiles")
        .expect("renders");
    let rows = planned(&crate::common::file(&files, "addresses.csv"));
    let design = c.design.expect("compiled");
    let src = SourceFile::new("ids.csv", ids_csv(&rows));
    let mut diags = Diagnostics::default();
    let ids = railyard::dayzero::parse(&src, &design.fabric, &mut diags);
    assert!(!diags.has_errors(), "{example}: identities read");
    let url = ProvisioningUrl::parse(URL).expect("url");
    let kea = railyard::dayzero::files(&design, &ids, Some(&url), &mut diags)
        .expect("written")
        .map(|f| {
            f.into_iter()
                .find(|f| f.path == "dayzero/kea-dhcp4.json")
                .expect("kea")
                .bytes
        });
    (rows, kea, diags)
}

fn macs(rows: &[Planned]) -> String {
    let mut s = String::from("name,mac_address\n");
    for (i, r) in rows.iter().enumerate() {
        s.push_str(&format!("{},{}\n", r.device, mac(i)));
    }
    s
}

/// `kea-dhcp4 -t FILE`: whether Kea accepts the configuration, and what it said.
fn kea_accepts(kea: &Path, dir: &Path, name: &str, bytes: &[u8]) -> (bool, String) {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    let out = std::process::Command::new(kea)
        .arg("-t")
        .arg(&path)
        .output()
        .expect("kea runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

/// Every reservation of the file with its subnet: (hostname, reservation, subnet).
fn reservations(kea: &Value) -> Vec<(String, Value, Value)> {
    let mut out = Vec::new();
    for s in kea["Dhcp4"]["subnet4"].as_array().expect("subnets") {
        for r in s["reservations"].as_array().expect("reservations") {
            out.push((
                r["hostname"].as_str().expect("hostname").to_owned(),
                r.clone(),
                s.clone(),
            ));
        }
    }
    out
}

#[test]
fn every_example_gives_a_kea_config_kea_accepts_with_every_planned_lease() {
    let test = "every_example_gives_a_kea_config_kea_accepts_with_every_planned_lease";
    let Some(kea) = prereq::program(test, "kea-dhcp4", "kea-dhcp4-server") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut examples: Vec<String> =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/inventories"))
            .expect("inventories")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".yaml"))
            .collect();
    examples.sort();
    assert!(examples.len() >= 10, "{examples:?}");
    for example in &examples {
        let (rows, file, diags) = build(example, macs);
        let file = file.unwrap_or_else(|| panic!("{example}: refused: {:?}", diags.sorted()));
        let (ok, said) = kea_accepts(&kea, dir.path(), &format!("{example}.json"), &file);
        assert!(ok, "{example}: kea-dhcp4 -t refused it:\n{said}");
        let json: Value = serde_json::from_slice(&file).expect("json");
        let got = reservations(&json);
        assert_eq!(
            got.len(),
            rows.len(),
            "{example}: one reservation per switch"
        );
        for (i, row) in rows.iter().enumerate() {
            let (_, r, s) = got
                .iter()
                .find(|(h, ..)| h == &row.device)
                .expect("reserved");
            assert_eq!(r["hw-address"], mac(i).as_str(), "{example} {}", row.device);
            assert_eq!(
                r["ip-address"],
                row.address.as_str(),
                "{example} {}",
                row.device
            );
            assert_eq!(s["id"], row.vlan, "{example} {}", row.device);
            assert_eq!(s["option-data"][0]["name"], "routers");
            assert_eq!(
                s["option-data"][0]["data"],
                row.gateway.as_str(),
                "{example} {}",
                row.device
            );
        }
    }
}

#[test]
fn each_os_is_pointed_at_its_ztp_file_by_its_option() {
    // lab-small runs Cumulus Linux (NVUE); the other two examples declare SONiC and EOS.
    for (example, option, file) in [
        ("lab-small.yaml", "cumulus-provision-url", "cumulus-ztp.sh"),
        ("sonic-rail-cluster.yaml", "boot-file-name", "ztp.json"),
        ("eos-ai-fabric.yaml", "boot-file-name", "bootstrap"),
    ] {
        let (rows, kea, _) = build(example, macs);
        let json: Value = serde_json::from_slice(&kea.expect("built")).expect("json");
        let leaf = rows
            .iter()
            .find(|r| r.device.starts_with("leaf"))
            .expect("a leaf");
        let (_, r, _) = reservations(&json)
            .into_iter()
            .find(|(h, ..)| h == &leaf.device)
            .expect("leaf");
        assert_eq!(r["option-data"][0]["name"], option, "{example}");
        assert_eq!(
            r["option-data"][0]["data"],
            format!("http://192.0.2.10/ztp/dayzero/ztp/{}/{file}", leaf.device).as_str(),
            "{example}"
        );
        assert_eq!(r["option-data"][0]["always-send"], true);
        // Option 239 is defined exactly when a reservation sends it (Kea refuses an unknown name).
        let defined = json["Dhcp4"]["option-def"].to_string();
        let sent = reservations(&json)
            .iter()
            .any(|(_, r, _)| r["option-data"][0]["name"] == "cumulus-provision-url");
        assert_eq!(
            defined.contains("\"code\":239"),
            sent,
            "{example}: {defined}"
        );
    }
}

#[test]
fn a_serial_alone_reserves_a_cumulus_switch_by_client_id_and_no_other() {
    let serial_only = |rows: &[Planned]| {
        let mut s = String::from("name,serial\n");
        s.push_str(&format!("{},MT2300X00007\n", rows[0].device));
        s
    };
    let (rows, kea, _) = build("lab-small.yaml", serial_only);
    let json: Value = serde_json::from_slice(&kea.expect("built")).expect("json");
    let (_, r, _) = reservations(&json)
        .into_iter()
        .find(|(h, ..)| h == &rows[0].device)
        .expect("reserved");
    // "00:" then the serial's ASCII bytes in hex (NVIDIA Config Manager's client_id_template).
    assert_eq!(r["client-id"], "00:4d:54:32:33:30:30:58:30:30:30:30:37");
    assert_eq!(r["ip-address"], rows[0].address.as_str());

    let (_, kea, diags) = build("eos-ai-fabric.yaml", serial_only);
    assert!(kea.is_none(), "an EOS switch sends no serial client id");
    let found: Vec<(&str, u32)> = diags
        .sorted()
        .iter()
        .map(|d| (d.code.id, d.span.expect("located").start))
        .collect();
    assert_eq!(found, vec![("RY1105", "name,serial\n".len() as u32)]);
}

#[test]
fn a_duplicate_reservation_is_refused_before_kea_which_would_refuse_it_too() {
    let c = railyard::compile(&SourceFile::new(
        "lab-small.yaml",
        crate::common::inventory("lab-small.yaml"),
    ));
    let design = c.design.expect("compiled");
    let (a, b) = ("leaf-su01-01", "leaf-su01-02");
    let one = |mac: &str, at: usize| Identity {
        mac: Some(Mac::parse(mac).expect("mac")),
        serial: None,
        at: Span::new(at, 1),
    };
    // The same MAC twice (the identity file's own check is RY1103; this is the guard of the
    // configuration itself), then the same address twice.
    let same_mac = Identities(
        [
            (a.to_owned(), one("02:00:00:00:00:01", 10)),
            (b.to_owned(), one("02:00:00:00:00:01", 20)),
        ]
        .into(),
    );
    let mut diags = Diagnostics::default();
    let kea = railyard::dayzero::kea_dhcp4(
        &design.fabric,
        &design.allocation,
        &same_mac,
        None,
        &mut diags,
    );
    assert!(kea.is_none());
    let found: Vec<(&str, u32)> = diags
        .sorted()
        .iter()
        .map(|d| (d.code.id, d.span.expect("located").start))
        .collect();
    assert_eq!(found, vec![("RY1106", 20)]);
    let said = &diags.sorted()[0].message;
    assert!(
        said.contains("the MAC address 02:00:00:00:00:01 of `leaf-su01-01`"),
        "{said}"
    );

    let mut allocation = design.allocation.clone();
    let taken = allocation.devices[a].mgmt;
    allocation.devices.get_mut(b).expect(b).mgmt = taken;
    let two = Identities(
        [
            (a.to_owned(), one("02:00:00:00:00:01", 10)),
            (b.to_owned(), one("02:00:00:00:00:02", 20)),
        ]
        .into(),
    );
    let mut diags = Diagnostics::default();
    assert!(
        railyard::dayzero::kea_dhcp4(&design.fabric, &allocation, &two, None, &mut diags).is_none()
    );
    assert_eq!(diags.sorted()[0].code.id, "RY1106");
    assert!(
        diags.sorted()[0].message.contains(a),
        "{}",
        diags.sorted()[0].message
    );

    // Kea itself refuses the same duplicate: the check guards a real failure.
    let Some(kea) = prereq::program(
        "a_duplicate_reservation_is_refused_before_kea",
        "kea-dhcp4",
        "kea-dhcp4-server",
    ) else {
        return;
    };
    let good = railyard::dayzero::kea_dhcp4(
        &design.fabric,
        &design.allocation,
        &two,
        None,
        &mut Diagnostics::default(),
    )
    .expect("built");
    let mut json = serde_json::to_value(&good).expect("json");
    let subnet = json["Dhcp4"]["subnet4"]
        .as_array_mut()
        .expect("subnets")
        .iter_mut()
        .find(|s| s["reservations"].as_array().is_some_and(|r| r.len() == 2))
        .expect("the leaves' subnet");
    subnet["reservations"][1]["hw-address"] = subnet["reservations"][0]["hw-address"].clone();
    let dir = tempfile::tempdir().expect("tempdir");
    let (ok, said) = kea_accepts(
        &kea,
        dir.path(),
        "dup.json",
        &serde_json::to_vec(&json).expect("bytes"),
    );
    assert!(!ok, "Kea accepted a duplicate MAC:\n{said}");
}

#[test]
fn build_writes_the_kea_config_and_refuses_a_hostile_provisioning_url() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (rows, ..) = build("lab-small.yaml", macs);
    std::fs::write(dir.path().join("ids.csv"), macs(&rows)).expect("write");
    let run = |out: &str, url: &str| {
        railyard_in(
            dir.path(),
            &[
                "build",
                "--example",
                "lab-small",
                "-o",
                out,
                "--identities",
                "ids.csv",
                "--provisioning-url",
                url,
                "--format",
                "short",
            ],
        )
    };
    let ok = run("out", URL);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let written = std::fs::read(dir.path().join("out/dayzero/kea-dhcp4.json")).expect("written");
    let manifest = std::fs::read_to_string(dir.path().join("out/manifest.json")).expect("manifest");
    assert!(
        manifest.contains("dayzero/kea-dhcp4.json"),
        "listed in the manifest"
    );
    let again = run("out2", URL);
    assert!(again.status.success());
    assert_eq!(
        std::fs::read(dir.path().join("out2/dayzero/kea-dhcp4.json")).expect("again"),
        written,
        "deterministic"
    );

    let bad = run("out3", "http://192.0.2.10/ztp/$(reboot)");
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("--provisioning-url:1:23") && err.contains("RY1104"),
        "{err}"
    );
    assert!(!dir.path().join("out3").exists(), "nothing written");
}

#[test]
fn without_a_provisioning_url_reservations_carry_no_ztp_option_and_no_ztp_file_is_written() {
    let c = railyard::compile(&SourceFile::new(
        "lab-small.yaml",
        crate::common::inventory("lab-small.yaml"),
    ));
    let design = c.design.expect("compiled");
    let src = SourceFile::new(
        "ids.csv",
        "name,mac_address\nleaf-su01-01,02:00:00:00:00:01\n",
    );
    let mut diags = Diagnostics::default();
    let ids = railyard::dayzero::parse(&src, &design.fabric, &mut diags);
    let files = railyard::dayzero::files(&design, &ids, None, &mut diags)
        .expect("written")
        .expect("built");
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        ["dayzero/kea-dhcp4.json", "dayzero/provisioning-order.csv"]
    );
    let json: Value = serde_json::from_slice(&files[0].bytes).expect("json");
    let (_, r, _) = reservations(&json)
        .into_iter()
        .find(|(h, ..)| h == "leaf-su01-01")
        .expect("reserved");
    assert!(r.get("option-data").is_none(), "{r}");
    assert!(json["Dhcp4"].get("option-def").is_none());
}
