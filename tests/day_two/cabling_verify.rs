//! Cabling verification (`railyard cabling verify`): the LLDP parsers on fixtures of every accepted
//! shape, the comparison against the `lab-small` plan (correct, swapped, wrong port, wrong device,
//! wrong rail, missing, unexpected, partial observation, determinism), what the result means
//! (PASS only when every planned cable in scope was seen; nothing observed, unseen cables and
//! captures of unknown devices are INCOMPLETE), the scope flags, the size limit and the streaming
//! reader, control characters from LLDP and the spec never reaching the terminal raw, the CLI's
//! exit codes, and a real-lldpd lab: one network namespace per switch, one veth per leaf-spine cable with two cables
//! swapped, `lldpd` in every namespace; the report must name exactly the two swapped cables.
//!
//! The lab test needs root and Debian's `lldpd`
//! (`apt-get install -y --no-install-recommends lldpd`). Without either it fails, unless
//! `RAILYARD_SKIP=root` / `RAILYARD_SKIP=lldpd` opts out on purpose (`tests/prereq`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use railyard::cabling::{
    self, Capture, Class, Gap, InputFormat, MiswireKind, ParseError, Report, Scope, Status, Unseen,
};
use railyard::diag::SourceFile;
use railyard::model::Tier;
use railyard::topology::Fabric;
use serde_json::{Value, json};

use crate::prereq;

// ---------------------------------------------------------------------------------------------
// Helpers

fn fabric() -> Fabric {
    railyard::compile(&SourceFile::new("lab-small.yaml", railyard::LAB_SMALL))
        .design
        .map(|d| d.fabric)
        .expect("lab-small compiles")
}

/// A planned cable by names: `(cable_id, label, a_dev, a_port, b_dev, b_port, tier)`.
#[derive(Clone, Debug)]
struct Row {
    id: String,
    label: String,
    a: (String, String),
    b: (String, String),
    tier: Tier,
}

fn rows(f: &Fabric) -> Vec<Row> {
    f.links()
        .map(|l| {
            let (da, db) = (f.device_of(&l.a), f.device_of(&l.b));
            Row {
                id: l.cable_id.clone(),
                label: f.label(l),
                a: (da.name.clone(), f.port_name(da, l.a.port)),
                b: (db.name.clone(), f.port_name(db, l.b.port)),
                tier: l.tier,
            }
        })
        .collect()
}

fn row<'a>(rows: &'a [Row], id: &str) -> &'a Row {
    rows.iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no cable {id} in lab-small"))
}

/// A wire between two ports: `((dev, port), (dev, port))`.
type Wire = ((String, String), (String, String));

fn wires_of(rows: &[Row], tier: Tier) -> Vec<Wire> {
    rows.iter()
        .filter(|r| r.tier == tier)
        .map(|r| (r.a.clone(), r.b.clone()))
        .collect()
}

/// lldpd `-f json0 show neighbors` output, in the shape lldpd 1.0.16 writes (trimmed).
fn json0(neigh: &[(&str, &str, &str)]) -> String {
    let ifaces: Vec<Value> = neigh
        .iter()
        .map(|(local, dev, port)| {
            json!({
                "name": local, "via": "LLDP", "rid": "1", "age": "0 day, 00:00:03",
                "chassis": [{
                    "id": [{"type": "mac", "value": "fa:58:5e:19:14:b8"}],
                    "name": [{"value": dev}],
                    "descr": [{"value": "Debian GNU/Linux 12 (bookworm)"}],
                    "capability": [{"type": "Bridge", "enabled": false}]
                }],
                "port": [{
                    "id": [{"type": "ifname", "value": port}],
                    "descr": [{"value": port}],
                    "ttl": [{"value": "4"}]
                }]
            })
        })
        .collect();
    let section = if ifaces.is_empty() {
        json!({})
    } else {
        json!({ "interface": ifaces })
    };
    serde_json::to_string_pretty(&json!({ "lldp": [section] })).unwrap()
}

/// [`json0`] of what a capture holds.
fn json0_of(c: &Capture) -> String {
    let neigh: Vec<(&str, &str, &str)> = c
        .observations
        .iter()
        .map(|o| {
            (
                o.local_port.as_str(),
                o.remote_device.as_str(),
                o.remote_port.as_str(),
            )
        })
        .collect();
    json0(&neigh)
}

/// `lldpcli -f json0 show chassis` output.
fn chassis_json0(name: &str) -> String {
    serde_json::to_string_pretty(&json!({
        "local-chassis": [{"chassis": [{
            "id": [{"type": "mac", "value": "3a:c0:51:96:91:6f"}],
            "name": [{"value": name}],
            "descr": [{"value": "Debian GNU/Linux 12 (bookworm)"}]
        }]}]
    }))
    .unwrap()
}

/// Captures for `wires`, as seen from `observers` (each wire reported by every observer end).
fn captures(wires: &[Wire], observers: &[&str]) -> Vec<Capture> {
    observers
        .iter()
        .map(|dev| {
            let mut neigh = Vec::new();
            for (x, y) in wires {
                if x.0 == *dev {
                    neigh.push((x.1.as_str(), y.0.as_str(), y.1.as_str()));
                }
                if y.0 == *dev {
                    neigh.push((y.1.as_str(), x.0.as_str(), x.1.as_str()));
                }
            }
            cabling::capture(&format!("{dev}.json"), &json0(&neigh), Some(dev)).unwrap()
        })
        .collect()
}

/// Exchange the `b` ends of two wires (the far plugs of two cables trade places).
fn swap_b(wires: &mut [Wire], one: &Row, two: &Row) {
    let i = wires
        .iter()
        .position(|w| w.0 == one.a && w.1 == one.b)
        .unwrap();
    let j = wires
        .iter()
        .position(|w| w.0 == two.a && w.1 == two.b)
        .unwrap();
    let tmp = wires[i].1.clone();
    wires[i].1 = wires[j].1.clone();
    wires[j].1 = tmp;
}

const SWITCHES: [&str; 4] = ["leaf-su01-01", "leaf-su01-02", "spine01", "spine02"];

fn ids(r: &Report) -> Vec<&str> {
    r.cables_to_fix()
}

// ---------------------------------------------------------------------------------------------
// Parsers

/// Real `lldpcli -f json0 show neighbors` output of lldpd 1.0.16 (two neighbours; only the
/// long system description shortened).
const JSON0_TWO: &str = r#"{
  "lldp": [
    {
      "interface": [
        {
          "name": "swp1", "via": "LLDP", "rid": "1", "age": "0 day, 00:00:03",
          "chassis": [
            {
              "id": [{"type": "mac", "value": "fa:58:5e:19:14:b8"}],
              "name": [{"value": "sw-b"}],
              "descr": [{"value": "Debian GNU/Linux 12 (bookworm) Linux 6.18"}],
              "mgmt-ip": [{"value": "fe80::f858:5eff:fe19:14b8"}],
              "mgmt-iface": [{"value": "5"}],
              "capability": [{"type": "Bridge", "enabled": false}, {"type": "Station", "enabled": true}]
            }
          ],
          "port": [
            {"id": [{"type": "ifname", "value": "swp1"}], "descr": [{"value": "swp1"}], "ttl": [{"value": "4"}]}
          ]
        },
        {
          "name": "swp2", "via": "LLDP", "rid": "1", "age": "0 day, 00:00:03",
          "chassis": [
            {
              "id": [{"type": "mac", "value": "fa:58:5e:19:14:b8"}],
              "name": [{"value": "sw-b"}],
              "capability": [{"type": "Bridge", "enabled": false}]
            }
          ],
          "port": [
            {"id": [{"type": "ifname", "value": "swp2"}], "descr": [{"value": "swp2"}], "ttl": [{"value": "4"}]}
          ]
        }
      ]
    }
  ]
}"#;

/// Real `lldpcli -f json show neighbors` output with exactly one neighbour: `interface` is an
/// object, `chassis` is keyed by the system name.
const JSON_ONE: &str = r#"{
  "lldp": {
    "interface": {
      "swp1": {
        "via": "LLDP", "rid": "1", "age": "0 day, 00:00:13",
        "chassis": {
          "sw-b": {
            "id": {"type": "mac", "value": "fa:58:5e:19:14:b8"},
            "descr": "Debian GNU/Linux 12 (bookworm) Linux 6.18",
            "mgmt-ip": "fe80::f858:5eff:fe19:14b8",
            "mgmt-iface": "5",
            "capability": [{"type": "Bridge", "enabled": false}]
          }
        },
        "port": {"id": {"type": "ifname", "value": "swp1"}, "descr": "swp1", "ttl": "4"}
      }
    }
  }
}"#;

/// Plain json with several neighbours: `interface` turns into an array of one-key objects. The
/// second neighbour sends no system name and a MAC port id (a Linux host's default).
const JSON_MANY: &str = r#"{
  "lldp": {
    "interface": [
      {"swp5": {"via": "LLDP", "chassis": {"spine01": {"id": {"type": "mac", "value": "aa:aa:aa:aa:aa:01"}}},
                "port": {"id": {"type": "ifname", "value": "swp1"}, "descr": "swp1"}}},
      {"swp1": {"via": "LLDP", "chassis": {"id": {"type": "mac", "value": "48:b0:2d:76:ee:8e"}, "descr": "Ubuntu"},
                "port": {"id": {"type": "mac", "value": "48:b0:2d:76:ee:8e"}, "descr": "ens1f0"}}}
    ]
  }
}"#;

/// NVUE `nv show interface --output json` (Cumulus Linux 5.x): interfaces keyed by name, LLDP
/// neighbours under `lldp.neighbor.<id>` with `chassis.system-name` and `port.{name,type,
/// description}`; followed by `nv show system --output json`, which names the switch.
const NVUE: &str = r#"{
  "eth0": {
    "ifindex": 2, "type": "eth",
    "link": {"mtu": 1500, "state": {"up": {}}},
    "lldp": {
      "dcbx-ets-config-tlv": "off", "dcbx-ets-recomm-tlv": "off", "dcbx-pfc-tlv": "off",
      "neighbor": {
        "oob-mgmt-switch": {
          "age": "698044",
          "bridge": {"vlan": {}},
          "chassis": {"chassis-id": "48:b0:2d:00:00:01", "management-address-ipv4": "192.168.200.1",
                      "system-description": "Cumulus Linux version 5.6.0", "system-name": "oob-mgmt-switch"},
          "lldp-med": {"device-type": "Network Connectivity Device"},
          "port": {"description": "swp10", "name": "swp10", "ttl": 120, "type": "ifname"}
        }
      }
    }
  },
  "lo": {"ifindex": 1, "type": "loopback"},
  "swp1": {
    "ifindex": 4, "type": "swp",
    "lldp": {"neighbor": {
      "server01": {
        "chassis": {"chassis-id": "48:b0:2d:76:ee:8e", "system-name": "server01"},
        "port": {"description": "eth1", "name": "48:b0:2d:76:ee:8e", "ttl": 120, "type": "mac"}
      }
    }}
  },
  "swp51": {
    "ifindex": 55, "type": "swp",
    "lldp": {"neighbor": {
      "spine01": {
        "age": 323055,
        "chassis": {"chassis-id": "44:38:39:22:01:82", "management-address-ipv4": "10.10.10.101",
                    "system-name": "spine01"},
        "port": {"description": "swp1", "name": "swp1", "ttl": 120, "type": "ifname"}
      }
    }}
  },
  "swp52": {"ifindex": 56, "type": "swp", "link": {"state": {"down": {}}}}
}
{"build": "Cumulus Linux 5.6.0", "hostname": "leaf01", "timezone": "Etc/UTC", "uptime": 8282449}
"#;

fn triples(p: &cabling::Parsed) -> Vec<(String, String, String)> {
    p.neighbours
        .iter()
        .map(|n| {
            (
                n.local_port.clone(),
                n.remote_device.clone(),
                n.remote_port.clone(),
            )
        })
        .collect()
}

fn t(a: &str, b: &str, c: &str) -> (String, String, String) {
    (a.into(), b.into(), c.into())
}

#[test]
fn parses_lldpd_json0() {
    let p = cabling::parse(JSON0_TWO).unwrap();
    assert_eq!(p.format, InputFormat::LldpdJson0);
    assert_eq!(p.local_device, None);
    assert_eq!(
        triples(&p),
        [t("swp1", "sw-b", "swp1"), t("swp2", "sw-b", "swp2")]
    );
    // No neighbours: still valid data, an empty list.
    let empty = cabling::parse("{\n  \"lldp\": [\n    {\n      \n    }\n  ]\n}\n").unwrap();
    assert_eq!(empty.format, InputFormat::LldpdJson0);
    assert!(empty.neighbours.is_empty());
}

#[test]
fn parses_lldpd_plain_json_with_zero_one_and_many_neighbours() {
    let one = cabling::parse(JSON_ONE).unwrap();
    assert_eq!(one.format, InputFormat::LldpdJson);
    assert_eq!(triples(&one), [t("swp1", "sw-b", "swp1")]);

    let many = cabling::parse(JSON_MANY).unwrap();
    assert_eq!(
        triples(&many),
        [
            // No system name: the chassis id stands in; MAC port id: the description is used.
            t("swp1", "48:b0:2d:76:ee:8e", "ens1f0"),
            t("swp5", "spine01", "swp1"),
        ]
    );

    let zero = cabling::parse("{\n  \"lldp\": {\n    \n  }\n}\n").unwrap();
    assert_eq!(zero.format, InputFormat::LldpdJson);
    assert!(zero.neighbours.is_empty());
}

#[test]
fn parses_nvue_interface_json_and_system_hostname() {
    let p = cabling::parse(NVUE).unwrap();
    assert_eq!(p.format, InputFormat::Nvue);
    assert_eq!(p.local_device.as_deref(), Some("leaf01"));
    assert_eq!(
        triples(&p),
        [
            t("eth0", "oob-mgmt-switch", "swp10"),
            t("swp1", "server01", "eth1"),
            t("swp51", "spine01", "swp1"),
        ]
    );
    // `nv show -o json` wraps the same map in `interface`.
    let wrapped = format!(
        "{{\"interface\": {}}}",
        NVUE.split("\n{\"build\"").next().unwrap()
    );
    let w = cabling::parse(&wrapped).unwrap();
    assert_eq!(w.format, InputFormat::Nvue);
    assert_eq!(w.neighbours.len(), 3);
    assert_eq!(w.local_device, None);
}

#[test]
fn local_device_comes_from_the_chassis_or_the_argument() {
    let both = format!(
        "{}\n{}",
        chassis_json0("spine01"),
        json0(&[("swp1", "leaf-su01-01", "swp5")])
    );
    let c = cabling::capture("spine01.json", &both, None).unwrap();
    assert_eq!(c.device, "spine01");
    assert_eq!(c.observations[0].local_device, "spine01");
    assert_eq!(c.observations[0].remote_device, "leaf-su01-01");
    // The argument wins over the data.
    let c = cabling::capture("x", &both, Some("spine02")).unwrap();
    assert_eq!(c.device, "spine02");
    // Plain json chassis output names the device too.
    let plain = r#"{"local-chassis": {"chassis": {"leaf-su01-01": {"id": {"type": "mac", "value": "3a:c0:51:96:91:6f"}}}}}"#;
    let c = cabling::capture("x", &format!("{plain}{JSON_ONE}"), None).unwrap();
    assert_eq!(c.device, "leaf-su01-01");
    // Neighbours alone do not say whose they are.
    assert_eq!(
        cabling::capture("x", JSON0_TWO, None).unwrap_err(),
        ParseError::NoLocalDevice
    );
}

#[test]
fn unreadable_inputs_are_errors() {
    assert!(matches!(
        cabling::parse("not json"),
        Err(ParseError::Json(_))
    ));
    assert!(matches!(
        cabling::parse(""),
        Err(ParseError::UnknownFormat(_))
    ));
    assert!(matches!(
        cabling::parse(r#"{"bgp": {"peers": 3}}"#),
        Err(ParseError::UnknownFormat(_))
    ));
    assert!(matches!(
        cabling::parse("[1, 2]"),
        Err(ParseError::UnknownFormat(_))
    ));
    assert_eq!(
        cabling::parse(&chassis_json0("spine01")).unwrap_err(),
        ParseError::NoNeighbourData
    );
    assert!(matches!(
        cabling::parse(&format!(
            "{}{}{}",
            chassis_json0("a"),
            chassis_json0("b"),
            JSON0_TWO
        )),
        Err(ParseError::ConflictingDevice { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// Comparison

#[test]
fn every_leaf_spine_cable_as_planned_is_clean_and_passes_its_scope() {
    let f = fabric();
    let rows = rows(&f);
    let wires = wires_of(&rows, Tier::LeafSpine);
    assert_eq!(wires.len(), 8);
    let caps = captures(&wires, &SWITCHES);
    let r = cabling::verify(&f, &caps);
    assert!(r.is_clean(), "{}", r.to_text());
    assert_eq!(r.summary.correct, 8);
    assert_eq!(r.correct.len(), 8);
    assert_eq!(r.summary.neighbour_entries, 16);
    // Nodes, the OOB and in-band switches sent nothing: their cables were not verified. That is
    // not a finding, and not a PASS either.
    assert_eq!(r.summary.not_verified, r.summary.planned_cables - 8);
    assert_eq!(r.status, Status::Incomplete);
    assert_eq!(r.gaps, [Gap::UnseenCables]);
    let text = r.to_text();
    assert!(text.contains("result: INCOMPLETE"), "{text}");
    assert!(!text.contains("PASS"), "{text}");

    // The leaf-spine tier is what the switches' captures can prove: PASS.
    let scope = Scope::new(&f, &[], &[Tier::LeafSpine]).unwrap();
    let r = cabling::verify_scoped(&f, &caps, &scope);
    assert_eq!(r.status, Status::Pass, "{}", r.to_text());
    assert_eq!(
        (r.summary.in_scope, r.summary.out_of_scope),
        (8, r.summary.planned_cables - 8)
    );
    assert!(r.gaps.is_empty() && r.not_verified.is_empty());
    assert!(r.to_text().contains("result: PASS"));
}

#[test]
fn swapped_ports_on_one_device_pair_name_both_cables() {
    let f = fabric();
    let rows = rows(&f);
    let (u1, u2) = (row(&rows, "c1-su1-l1-u1"), row(&rows, "c1-su1-l1-u2"));
    assert_eq!(
        (u1.a.0.as_str(), u1.b.0.as_str()),
        ("leaf-su01-01", "spine01")
    );
    assert_eq!(
        (u2.a.0.as_str(), u2.b.0.as_str()),
        ("leaf-su01-01", "spine01")
    );
    let mut wires = wires_of(&rows, Tier::LeafSpine);
    swap_b(&mut wires, u1, u2);
    let r = cabling::verify(&f, &captures(&wires, &SWITCHES));
    assert_eq!(r.findings.len(), 1, "{}", r.to_text());
    let fd = &r.findings[0];
    assert_eq!(fd.class, Class::Miswired);
    assert_eq!(fd.kind, Some(MiswireKind::SwappedPorts));
    assert!(fd.swapped);
    assert_eq!(ids(&r), ["c1-su1-l1-u1", "c1-su1-l1-u2"]);
    let labels: Vec<&str> = fd.cables.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, [u1.label.as_str(), u2.label.as_str()]);
    assert_eq!(fd.cables[0].a.to_string(), "leaf-su01-01:swp5");
    assert_eq!(fd.cables[0].b.to_string(), "spine01:swp1");
    assert_eq!(fd.observed.len(), 2);
    assert!(
        fd.fix.contains("spine01:swp2 and spine01:swp1"),
        "{}",
        fd.fix
    );
    assert_eq!(r.summary.correct, 6);
    let text = r.to_text();
    assert!(text.contains("MISWIRED swapped-ports"), "{text}");
    assert!(
        text.contains(&u1.label) && text.contains(&u2.label),
        "{text}"
    );
}

#[test]
fn a_swap_across_two_leaves_is_a_wrong_device_swap() {
    let f = fabric();
    let rows = rows(&f);
    let (l1, l2) = (row(&rows, "c1-su1-l1-u1"), row(&rows, "c1-su1-l2-u1"));
    let mut wires = wires_of(&rows, Tier::LeafSpine);
    swap_b(&mut wires, l1, l2);
    // Only the leaves are captured: the spines are known from the leaves' neighbour lists.
    let r = cabling::verify(&f, &captures(&wires, &["leaf-su01-01", "leaf-su01-02"]));
    assert_eq!(r.findings.len(), 1, "{}", r.to_text());
    assert_eq!(r.findings[0].kind, Some(MiswireKind::WrongDevice));
    assert!(r.findings[0].swapped);
    assert_eq!(ids(&r), ["c1-su1-l1-u1", "c1-su1-l2-u1"]);
}

#[test]
fn compute_nics_on_the_wrong_rail_are_wrong_rail() {
    let f = fabric();
    let rows = rows(&f);
    let (r1, r2) = (row(&rows, "c1-su1-n3-r1"), row(&rows, "c1-su1-n3-r2"));
    // The nodes run LLDP but are not captured; only the leaves are.
    let mut wires = wires_of(&rows, Tier::NodeLeaf);
    wires.retain(|w| w.0.0.starts_with("gpu"));
    wires.retain(|w| w.1.0.starts_with("leaf-su01"));
    // gpu003's two NICs swapped: rail 1 on leaf 2 and rail 2 on leaf 1.
    swap_b(&mut wires, r1, r2);
    let r = cabling::verify(&f, &captures(&wires, &["leaf-su01-01", "leaf-su01-02"]));
    assert_eq!(r.findings.len(), 1, "{}", r.to_text());
    assert_eq!(r.findings[0].kind, Some(MiswireKind::WrongRail));
    assert!(r.findings[0].swapped);
    assert_eq!(ids(&r), ["c1-su1-n3-r1", "c1-su1-n3-r2"]);

    // Only one NIC moved (rail-1 NIC on leaf 2's port; its own port is empty).
    let mut wires = wires_of(&rows, Tier::NodeLeaf);
    wires.retain(|w| w.0.0.starts_with("gpu") && w.1.0.starts_with("leaf-su01"));
    wires.retain(|w| w.0 != r2.a); // gpu003:ens2f0 unplugged
    let i = wires.iter().position(|w| w.0 == r1.a).unwrap();
    wires[i].1 = r2.b.clone(); // gpu003:ens1f0 → leaf-su01-02:swp3
    let r = cabling::verify(&f, &captures(&wires, &["leaf-su01-01", "leaf-su01-02"]));
    assert_eq!(r.findings.len(), 1, "{}", r.to_text());
    let fd = &r.findings[0];
    assert_eq!(fd.kind, Some(MiswireKind::WrongRail));
    assert!(!fd.swapped);
    assert!(
        fd.message.contains("rail-1 NIC on a rail-2 leaf port"),
        "{}",
        fd.message
    );
    assert_eq!(ids(&r), ["c1-su1-n3-r1", "c1-su1-n3-r2"]);
}

#[test]
fn one_cable_in_a_spare_port_is_a_wrong_port() {
    let f = fabric();
    let rows = rows(&f);
    let u1 = row(&rows, "c1-su1-l1-u1");
    let mut wires = wires_of(&rows, Tier::LeafSpine);
    let i = wires.iter().position(|w| w.0 == u1.a).unwrap();
    wires[i].1 = ("spine01".into(), "swp20".into());
    let r = cabling::verify(&f, &captures(&wires, &SWITCHES));
    assert_eq!(r.findings.len(), 1, "{}", r.to_text());
    let fd = &r.findings[0];
    assert_eq!(fd.kind, Some(MiswireKind::WrongPort));
    assert_eq!(ids(&r), ["c1-su1-l1-u1"]);
    assert!(
        fd.fix.contains("from spine01:swp20 to spine01:swp1"),
        "{}",
        fd.fix
    );
}

#[test]
fn missing_needs_an_observed_end_and_a_speaking_peer() {
    let f = fabric();
    let rows = rows(&f);
    let mut wires = wires_of(&rows, Tier::LeafSpine);
    let u1 = row(&rows, "c1-su1-l1-u1");
    wires.retain(|w| w.0 != u1.a);
    // Both ends captured, neither sees the other.
    let r = cabling::verify(&f, &captures(&wires, &SWITCHES));
    assert_eq!(r.findings.len(), 1, "{}", r.to_text());
    assert_eq!(r.findings[0].class, Class::Missing);
    assert_eq!(ids(&r), ["c1-su1-l1-u1"]);
    assert!(
        r.findings[0]
            .message
            .contains("leaf-su01-01:swp5 or spine01:swp1")
    );

    // Only leaf-su01-02 captured: spine01 is a known speaker, but leaf-su01-01's cables are
    // invisible from there, so nothing about u1 can be said.
    let r = cabling::verify(&f, &captures(&wires, &["leaf-su01-02"]));
    assert!(r.is_clean(), "{}", r.to_text());
    assert_eq!(r.summary.correct, 4);

    // Nodes that run no LLDP: their leaf ports see nothing, which is not a missing cable.
    let none: Vec<Wire> = Vec::new();
    let r = cabling::verify(&f, &captures(&none, &["leaf-su01-01"]));
    assert!(r.is_clean(), "{}", r.to_text());
    assert_eq!(r.summary.not_verified, r.summary.planned_cables);
    assert_eq!(r.status, Status::Incomplete);
}

#[test]
fn links_between_unplanned_ports_are_unexpected() {
    let f = fabric();
    let rows = rows(&f);
    let mut wires = wires_of(&rows, Tier::LeafSpine);
    wires.push((
        ("leaf-su01-01".into(), "swp30".into()),
        ("leaf-su01-02".into(), "swp30".into()),
    ));
    wires.push((
        ("spine02".into(), "swp31".into()),
        ("rogue-switch".into(), "Ethernet1".into()),
    ));
    let r = cabling::verify(&f, &captures(&wires, &SWITCHES));
    assert_eq!(r.findings.len(), 2, "{}", r.to_text());
    assert!(
        r.findings
            .iter()
            .all(|f| f.class == Class::Unexpected && f.cables.is_empty())
    );
    assert!(ids(&r).is_empty());
    let text = r.to_text();
    assert!(text.contains("2 unplanned link(s)"), "{text}");
}

#[test]
fn fqdn_system_names_resolve_to_plan_names() {
    let f = fabric();
    let leaf = json0(&[
        ("swp5", "spine01.lab.example.net", "swp1"),
        ("swp6", "SPINE01", "swp2"),
    ]);
    let c = cabling::capture("leaf.json", &leaf, Some("leaf-su01-01.lab.example.net")).unwrap();
    let r = cabling::verify(&f, &[c]);
    assert_eq!(r.summary.correct, 2, "{}", r.to_text());
    assert_eq!(r.captures[0].device, "leaf-su01-01");
    assert!(r.captures[0].planned);
}

#[test]
fn the_report_does_not_depend_on_input_order() {
    let f = fabric();
    let rows = rows(&f);
    let mut wires = wires_of(&rows, Tier::LeafSpine);
    swap_b(
        &mut wires,
        row(&rows, "c1-su1-l1-u1"),
        row(&rows, "c1-su1-l2-u3"),
    );
    wires.retain(|w| w.0 != row(&rows, "c1-su1-l2-u4").a);
    wires.push((
        ("leaf-su01-01".into(), "swp30".into()),
        ("x".into(), "y".into()),
    ));
    let a = cabling::verify(&f, &captures(&wires, &SWITCHES));
    let mut rev = wires.clone();
    rev.reverse();
    let mut caps = captures(
        &rev,
        &["spine02", "leaf-su01-02", "spine01", "leaf-su01-01"],
    );
    for c in &mut caps {
        c.observations.reverse();
    }
    let b = cabling::verify(&f, &caps);
    // Sources are listed sorted by device; the rest must be identical byte for byte.
    assert_eq!(a.to_json(), b.to_json());
    assert_eq!(a.to_text(), b.to_text());
    let classes: Vec<Class> = a.findings.iter().map(|f| f.class).collect();
    assert_eq!(
        classes,
        [Class::Miswired, Class::Missing, Class::Unexpected]
    );
}

#[test]
fn nothing_observed_is_incomplete_never_pass() {
    let f = fabric();
    let none: Vec<Wire> = Vec::new();
    // One capture without a neighbour: today's "PASS, 0 correct of 30 planned".
    let r = cabling::verify(&f, &captures(&none, &["leaf-su01-01"]));
    assert_eq!(r.status, Status::Incomplete, "{}", r.to_text());
    assert_eq!(r.gaps, [Gap::UnseenCables, Gap::NothingObserved]);
    assert_eq!(r.summary.correct, 0);
    assert_eq!(r.not_verified.len(), r.summary.planned_cables);
    let text = r.to_text();
    assert!(
        text.contains("result: INCOMPLETE") && !text.contains("PASS"),
        "{text}"
    );
    assert!(text.contains("no neighbour entry in any capture"), "{text}");
    // The first few unseen cables are named, the rest counted.
    assert_eq!(text.matches("\n  not seen  ").count(), 5, "{text}");
    assert!(text.contains("… and 25 more"), "{text}");

    // Two empty captures with planned cables between them: nobody is known to send LLDP, so
    // nothing is claimed missing; still INCOMPLETE, not FAIL.
    let r = cabling::verify(&f, &captures(&none, &SWITCHES));
    assert_eq!(r.status, Status::Incomplete, "{}", r.to_text());
    assert!(r.findings.is_empty());
    let u1 = r
        .not_verified
        .iter()
        .find(|u| u.cable.cable_id == "c1-su1-l1-u1")
        .expect("a leaf-spine cable between two captured switches is listed");
    assert_eq!(u1.reason, Unseen::PeerSilent);

    // No capture at all (the library allows it; the CLI requires --lldp).
    let r = cabling::verify(&f, &[]);
    assert_eq!(r.status, Status::Incomplete);
    assert!(
        r.not_verified
            .iter()
            .all(|u| u.reason == Unseen::NotCaptured)
    );
}

#[test]
fn a_capture_from_a_device_the_plan_does_not_have_is_incomplete_and_not_compared() {
    let f = fabric();
    let rows = rows(&f);
    let wires = wires_of(&rows, Tier::LeafSpine);
    let leaf_spine = Scope::new(&f, &[], &[Tier::LeafSpine]).unwrap();
    let mut caps = captures(&wires, &SWITCHES);
    // A typo in DEVICE=: leaf-su01-01's real neighbours, attributed to `lef01`.
    let mut typo = caps[0].clone();
    typo.device = "lef01".into();
    for o in &mut typo.observations {
        o.local_device = "lef01".into();
    }
    caps.push(typo.clone());
    let r = cabling::verify_scoped(&f, &caps, &leaf_spine);
    // Without it the scope passes; with it the result cannot be PASS, and its neighbours (which
    // would read as four wrong-device miswires) are not compared.
    assert_eq!(r.status, Status::Incomplete, "{}", r.to_text());
    assert_eq!(r.gaps, [Gap::UnplannedCaptures]);
    assert!(r.findings.is_empty(), "{}", r.to_text());
    assert_eq!(r.summary.unplanned_captures, 1);
    let lef = r.captures.iter().find(|c| c.device == "lef01").unwrap();
    assert!(!lef.planned);
    assert_eq!(lef.neighbours, 4);
    assert_eq!(r.summary.neighbour_entries, 16);
    let text = r.to_text();
    assert!(
        text.contains(
            "1 capture(s) from devices the plan does not have: `lef01` (leaf-su01-01.json)"
        ),
        "{text}"
    );
    assert!(
        text.contains("not a device of the plan: not compared"),
        "{text}"
    );

    // Only captures of unknown devices: INCOMPLETE, nothing compared.
    let r = cabling::verify(&f, &[typo]);
    assert_eq!(r.status, Status::Incomplete);
    assert_eq!(
        r.gaps,
        [
            Gap::UnseenCables,
            Gap::UnplannedCaptures,
            Gap::NothingObserved
        ]
    );
    assert!(r.findings.is_empty());
}

/// Every device of the plan captured, every cable as planned.
fn full_capture(f: &Fabric) -> Vec<Capture> {
    let rows = rows(f);
    let wires: Vec<Wire> = rows.iter().map(|r| (r.a.clone(), r.b.clone())).collect();
    let devices: Vec<String> = f.devices().map(|d| d.name.clone()).collect();
    let devices: Vec<&str> = devices.iter().map(String::as_str).collect();
    captures(&wires, &devices)
}

#[test]
fn every_planned_cable_seen_as_planned_is_pass() {
    let f = fabric();
    let r = cabling::verify(&f, &full_capture(&f));
    assert_eq!(r.status, Status::Pass, "{}", r.to_text());
    assert_eq!(r.summary.correct, r.summary.planned_cables);
    assert_eq!(r.summary.in_scope, r.summary.planned_cables);
    assert!(r.gaps.is_empty() && r.not_verified.is_empty() && r.findings.is_empty());
    assert!(
        r.to_text()
            .contains("result: PASS — all 30 planned cables in scope seen as planned")
    );
    let v: Value = serde_json::from_str(&r.to_json()).unwrap();
    assert_eq!(v["status"], "pass");
}

#[test]
fn the_scope_narrows_what_must_be_seen_never_what_may_be_wrong() {
    let f = fabric();
    let rows = rows(&f);
    // Scope by device: cables with an end on a listed device; names resolve like LLDP names.
    let on = |r: &Row, d: &str| r.a.0 == d || r.b.0 == d;
    let s = Scope::new(&f, &["SPINE01.lab.example".into()], &[]).unwrap();
    assert_eq!(s.devices, ["spine01"]);
    let r = cabling::verify_scoped(&f, &[], &s);
    let spine01 = rows.iter().filter(|r| on(r, "spine01")).count();
    assert_eq!(r.summary.in_scope, spine01, "{}", r.to_text());
    assert_eq!(r.summary.out_of_scope, rows.len() - spine01);
    // Device and tier together.
    let s = Scope::new(
        &f,
        &["leaf-su01-01".into()],
        &[Tier::LeafSpine, Tier::NodeLeaf],
    )
    .unwrap();
    let r = cabling::verify_scoped(&f, &[], &s);
    // Four uplinks and four rail-1 NICs.
    let expect = rows
        .iter()
        .filter(|r| on(r, "leaf-su01-01") && matches!(r.tier, Tier::LeafSpine | Tier::NodeLeaf))
        .count();
    assert_eq!((r.summary.in_scope, expect), (8, 8), "{}", r.to_text());
    // A scope with nothing in it is never a PASS.
    let s = Scope::new(&f, &[], &[Tier::SpineCore]).unwrap();
    let r = cabling::verify_scoped(&f, &full_capture(&f), &s);
    assert_eq!(r.status, Status::Incomplete);
    assert_eq!(r.gaps, [Gap::EmptyScope]);
    // An unknown device is an error, naming it.
    let e = Scope::new(&f, &["spine01".into(), "spine9".into()], &[]).unwrap_err();
    assert_eq!(e.0, ["spine9"]);
    assert_eq!(cabling::tier_named("leaf-spine"), Ok(Tier::LeafSpine));
    assert!(
        cabling::tier_named("leafspine")
            .unwrap_err()
            .contains("leaf-spine")
    );

    // A miswire outside the scope still fails it.
    let (r1, r2) = (row(&rows, "c1-su1-n3-r1"), row(&rows, "c1-su1-n3-r2"));
    let mut wires: Vec<Wire> = wires_of(&rows, Tier::LeafSpine);
    let mut nics = wires_of(&rows, Tier::NodeLeaf);
    nics.retain(|w| w.0.0.starts_with("gpu") && w.1.0.starts_with("leaf-su01"));
    swap_b(&mut nics, r1, r2);
    wires.extend(nics);
    let leaf_spine = Scope::new(&f, &[], &[Tier::LeafSpine]).unwrap();
    let r = cabling::verify_scoped(&f, &captures(&wires, &SWITCHES), &leaf_spine);
    assert_eq!(r.status, Status::Fail, "{}", r.to_text());
    assert_eq!(ids(&r), ["c1-su1-n3-r1", "c1-su1-n3-r2"]);
}

// ---------------------------------------------------------------------------------------------
// CLI

fn railyard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(args)
        .output()
        .expect("the railyard binary runs")
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn cli_exit_codes_and_formats() {
    let f = fabric();
    let rows = rows(&f);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let wires = wires_of(&rows, Tier::LeafSpine);
    let caps = captures(&wires, &SWITCHES);
    // leaf-su01-01 as DEVICE=FILE, spine01 with its chassis in the file.
    let leaf = write(d, "leaf1.json", &json0_of(&caps[0]));
    let spine = write(
        d,
        "spine1.json",
        &format!("{}{}", chassis_json0("spine01"), json0_of(&caps[2])),
    );
    let leaf_arg = format!("leaf-su01-01={leaf}");

    // Two switches captured: their leaf-spine cables can be proven, nothing else.
    let scoped = ["--tier", "leaf-spine", "--devices", "leaf-su01-01,spine01"];
    let mut args = vec!["cabling", "verify", "--example", "lab-small", "--lldp"];
    args.extend([leaf_arg.as_str(), spine.as_str()]);
    args.extend(scoped);
    let ok = railyard(&args);
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let text = String::from_utf8_lossy(&ok.stdout);
    assert!(text.contains("result: PASS"), "{text}");
    assert!(text.contains("scope: devices leaf-su01-01, spine01; tiers leaf-spine (6 of 30"));
    // The same captures against the whole plan: INCOMPLETE, 3.
    let out = railyard(&[
        "cabling",
        "verify",
        "--example",
        "lab-small",
        "--lldp",
        &leaf_arg,
        &spine,
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains("result: INCOMPLETE"));

    // A miswire: spine01 reports leaf-su01-01's swp5 on its swp2.
    let bad_spine = write(
        d,
        "spine1-bad.json",
        &format!(
            "{}{}",
            chassis_json0("spine01"),
            json0(&[("swp2", "leaf-su01-01", "swp5")])
        ),
    );
    let out = railyard(&[
        "cabling",
        "verify",
        "--example",
        "lab-small",
        "--lldp",
        &bad_spine,
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(v["findings"][0]["class"], "miswired");
    assert_eq!(v["findings"][0]["kind"], "wrong-port");
    let named: BTreeSet<&str> = v["findings"][0]["cables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["cable_id"].as_str().unwrap())
        .collect();
    assert_eq!(named, BTreeSet::from(["c1-su1-l1-u1", "c1-su1-l1-u2"]));

    // Unreadable input: 2.
    let garbage = write(d, "garbage.json", "lldp? no");
    let out = railyard(&[
        "cabling",
        "verify",
        "--example",
        "lab-small",
        "--lldp",
        &leaf_arg,
        &garbage,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("garbage.json"));
    let out = railyard(&[
        "cabling",
        "verify",
        "--example",
        "lab-small",
        "--lldp",
        "/nonexistent/lldp.json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    // Neighbours without a device name: 2, with the way out in the message.
    let out = railyard(&[
        "cabling",
        "verify",
        "--example",
        "lab-small",
        "--lldp",
        &leaf,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("DEVICE=FILE"));
    // A spec with errors: 2.
    let spec = write(d, "broken.yaml", "name: [unterminated\n");
    let out = railyard(&["cabling", "verify", &spec, "--lldp", &leaf_arg]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn cli_results_mean_what_they_say() {
    let f = fabric();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let empty = write(d, "empty.json", "{\n  \"lldp\": [\n    {}\n  ]\n}\n");
    let code = |args: &[&str]| {
        let out = railyard(args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };

    // Nothing observed: INCOMPLETE, exit 3 (exit 0 and PASS before).
    let arg = format!("leaf-su01-01={empty}");
    let (c, text) = code(&[
        "cabling",
        "verify",
        "--example",
        "lab-small",
        "--lldp",
        &arg,
    ]);
    assert_eq!(c, Some(3), "{text}");
    assert!(
        text.contains("result: INCOMPLETE") && !text.contains("PASS"),
        "{text}"
    );
    let (c, json) = code(&[
        "cabling",
        "verify",
        "--example",
        "lab-small",
        "--lldp",
        &arg,
        "--format",
        "json",
    ]);
    assert_eq!(c, Some(3));
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["status"], "incomplete");
    assert_eq!(v["summary"]["correct"], 0);
    assert_eq!(v["not_verified"].as_array().unwrap().len(), 30);

    // A capture from a device the plan does not have: INCOMPLETE, named.
    let arg = format!("leaf-su99-01={empty}");
    let (c, text) = code(&[
        "cabling",
        "verify",
        "--example",
        "lab-small",
        "--lldp",
        &arg,
    ]);
    assert_eq!(c, Some(3), "{text}");
    assert!(text.contains("`leaf-su99-01`"), "{text}");

    // Every device captured, every cable as planned: PASS, exit 0.
    let mut args: Vec<String> = [
        "cabling",
        "verify",
        "--example",
        "lab-small",
        "--format",
        "json",
        "--lldp",
    ]
    .map(String::from)
    .to_vec();
    for c in full_capture(&f) {
        let file = write(d, &format!("{}.json", c.device), &json0_of(&c));
        args.push(format!("{}={file}", c.device));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (c, json) = code(&args);
    assert_eq!(c, Some(0), "{json}");
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["status"], "pass");
    assert_eq!(v["summary"]["correct"], 30);

    // A scope device the plan does not have: unreadable input, 2, named.
    let out = railyard(&[
        "cabling",
        "verify",
        "--example",
        "lab-small",
        "--lldp",
        &arg,
        "--devices",
        "spine01,spine9",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`spine9`"));
    let out = railyard(&[
        "cabling",
        "verify",
        "--example",
        "lab-small",
        "--lldp",
        &arg,
        "--tier",
        "spines",
    ]);
    assert_eq!(out.status.code(), Some(2));

    // The help says what the results mean and how the scope works.
    let help =
        String::from_utf8_lossy(&railyard(&["cabling", "verify", "--help"]).stdout).into_owned();
    for needle in [
        "INCOMPLETE  exit 3",
        "--devices",
        "--tier",
        "64 MiB",
        "never hides",
    ] {
        assert!(help.contains(needle), "{needle} not in --help:\n{help}");
    }
}

/// The limit of one capture, as `--help` and the error message state it.
const CAPTURE_LIMIT: u64 = 64 << 20;

#[test]
fn captures_over_the_size_limit_or_not_regular_files_are_refused_naming_file_and_limit() {
    let dir = tempfile::tempdir().unwrap();
    // Exit 2, and what the command said.
    let refused = |file: &str| -> String {
        let arg = format!("leaf-su01-01={file}");
        let out = railyard(&[
            "cabling",
            "verify",
            "--example",
            "lab-small",
            "--lldp",
            &arg,
        ]);
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // A sparse file just over the limit: refused by its size, before a byte is read.
    let big = dir.path().join("whole-fabric.json");
    let file = std::fs::File::create(&big).unwrap();
    file.set_len(CAPTURE_LIMIT + 1).unwrap();
    let err = refused(&big.display().to_string());
    assert!(
        err.contains("whole-fabric.json") && err.contains("over the limit of 64 MiB"),
        "{err}"
    );
    // At the limit exactly, the file is read (and here is not JSON: NUL bytes).
    file.set_len(CAPTURE_LIMIT).unwrap();
    let err = refused(&big.display().to_string());
    assert!(err.contains("not JSON") && !err.contains("limit"), "{err}");

    // A stream with no size to check first is refused unopened (opening a FIFO nobody writes
    // to would block; a device such as /dev/zero never ends).
    let fifo = dir.path().join("lldp.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    for path in [fifo.display().to_string(), "/dev/zero".to_string()] {
        let err = refused(&path);
        assert!(
            err.contains("not a regular file") && err.contains("64 MiB"),
            "{err}"
        );
    }
}

/// lldpd `-f json0 show neighbors details` for 256 neighbours of `device` (a 64-port switch
/// broken out in four), each advertising the VLANs `1..=vlans` (a trunk port), in the shape
/// lldpd 1.0.16 writes. The VLAN list is the part railyard skips: with every VLAN it makes the
/// file 200 times larger without a neighbour more.
fn json0_trunks(device: &str, vlans: u32) -> String {
    let vlan_list: Vec<Value> = (1..=vlans)
        .map(|v| json!({"vlan-id": v.to_string(), "pvid": v == 1, "value": format!("vlan{v}")}))
        .collect();
    let vlan_list = Value::from(vlan_list).to_string();
    let mut text = format!(
        "{}\n{{\"lldp\": [{{\"interface\": [\n",
        chassis_json0(device)
    );
    for i in 0..256 {
        let mut entry = json!({
            "name": format!("swp{}s{}", i / 4 + 1, i % 4), "via": "LLDP", "rid": "1",
            "age": "0 day, 00:00:03",
            "chassis": [{
                "id": [{"type": "mac", "value": "fa:58:5e:19:14:b8"}],
                "name": [{"value": format!("node{i:03}")}],
                "descr": [{"value": "Cumulus Linux version 5.6.0 running on MSN4700"}],
                "capability": [{"type": "Bridge", "enabled": true}]
            }],
            "port": [{
                "id": [{"type": "ifname", "value": "ens1f0"}],
                "descr": [{"value": "ens1f0"}],
                "ttl": [{"value": "120"}]
            }],
            "vlan": "VLANS",
        })
        .to_string();
        entry = entry.replace("\"VLANS\"", &vlan_list);
        if i > 0 {
            text.push_str(",\n");
        }
        text.push_str(&entry);
    }
    text.push_str("\n]}]}\n");
    text
}

/// Peak resident memory of `railyard args`, in KiB, by GNU time (the kernel's `ru_maxrss` of the
/// child); `None` when GNU time is missing and the developer opted out (`tests/prereq`).
fn peak_rss_kib(args: &[&str]) -> Option<(Output, u64)> {
    let time = Path::new("/usr/bin/time");
    let hint = "apt-get install -y --no-install-recommends time";
    if !prereq::require("a_large_capture_is_streamed", "time", time.exists(), hint) {
        return None;
    }
    let out = Command::new(time)
        .args(["-f", "peak-rss-kib=%M", env!("CARGO_BIN_EXE_railyard")])
        .args(args)
        .output()
        .expect("GNU time runs railyard");
    let err = String::from_utf8_lossy(&out.stderr);
    let kib = err
        .lines()
        .find_map(|l| l.strip_prefix("peak-rss-kib="))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak RSS from GNU time:\n{err}"));
    Some((out, kib))
}

#[test]
fn a_large_capture_is_streamed_in_memory_far_below_its_size() {
    let dir = tempfile::tempdir().unwrap();
    // The same 256 neighbours twice: with one VLAN each (~120 KB), and with every VLAN (~50 MB,
    // under the 64 MiB limit). Held whole, the large text alone would add 50 MB (a serde_json
    // `Value` tree of it about thirty times that, which is how a 300 MB capture used to abort).
    let small = json0_trunks("leaf-su01-01", 1);
    let large = json0_trunks("leaf-su01-01", 4094);
    let size = large.len() as u64;
    assert!((45 << 20..CAPTURE_LIMIT).contains(&size), "{size} bytes");
    let small = write(dir.path(), "small.json", &small);
    let large = write(dir.path(), "large.json", &large);
    let mut peak = Vec::new();
    for file in [&small, &large] {
        let args = [
            "cabling",
            "verify",
            "--example",
            "lab-small",
            "--format",
            "json",
            "--lldp",
            file,
        ];
        let Some((out, kib)) = peak_rss_kib(&args) else {
            return;
        };
        // Every neighbour was read (none is planned: FAIL, 1).
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
        assert_eq!(v["summary"]["neighbour_entries"], 256);
        peak.push(kib);
    }
    // Memory follows the neighbours found, not the bytes: 400 times the text, the same peak
    // (measured: +252 KiB on 38.9 MB).
    let added = peak[1].saturating_sub(peak[0]) * 1024;
    eprintln!(
        "peak RSS {} KiB (120 KB capture), {} KiB ({size} bytes)",
        peak[0], peak[1]
    );
    assert!(
        added < size / 16,
        "reading a {size}-byte capture added {added} bytes of peak memory"
    );
}

#[test]
fn the_streaming_reader_reads_what_the_text_parser_reads() {
    let names: Vec<(String, String, String)> = (0..5000)
        .map(|i| {
            (
                format!("swp{i}"),
                format!("leaf{:03}", i % 97),
                format!("swp{}", i / 97),
            )
        })
        .collect();
    let neigh: Vec<(&str, &str, &str)> = names
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    let inputs = [
        format!("{}{}", chassis_json0("spine01"), json0(&neigh)),
        JSON0_TWO.to_string(),
        JSON_ONE.to_string(),
        JSON_MANY.to_string(),
        NVUE.to_string(),
        "{\"lldp\": [{}]} [1]".to_string(),
        "{\"lldp\": [{\"interface\": [".to_string(),
    ];
    for text in &inputs {
        let from_text = cabling::parse(text);
        let streamed = cabling::parse_reader(text.as_bytes());
        match (from_text, streamed) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.neighbours, b.neighbours);
                assert_eq!((a.format, a.local_device), (b.format, b.local_device));
            }
            (Err(a), Err(b)) => assert_eq!(a, b),
            (a, b) => panic!("text {a:?}, stream {b:?}"),
        }
    }
    let big = cabling::parse_reader(inputs[0].as_bytes()).unwrap();
    assert_eq!(big.neighbours.len(), 5000);
    assert_eq!(big.local_device.as_deref(), Some("spine01"));
}

/// Bytes a terminal acts on: ESC and the one-character CSI (U+009B, `c2 9b` in UTF-8).
fn raw_controls(bytes: &[u8]) -> bool {
    bytes.contains(&0x1b) || bytes.windows(2).any(|w| w == [0xc2, 0x9b])
}

#[test]
fn escape_sequences_from_lldp_and_the_spec_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let check = |what: &str, out: &Output| {
        assert!(
            !raw_controls(&out.stdout) && !raw_controls(&out.stderr),
            "{what}: raw control bytes on the terminal:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // The data did reach the output, escaped.
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            all.contains("\\x1b") || all.contains("\\u{1b}"),
            "{what}: the escaped form is missing:\n{all}"
        );
    };

    // LLDP: a system name and a port description with ESC sequences and a C1 CSI.
    let lldp = json0(&[
        ("swp5", "spine01\u{1b}[2J\u{1b}]0;owned\u{7}", "swp1"),
        ("swp6", "spine01", "swp2\u{9b}31m\nresult: PASS"),
    ]);
    let arg = format!("leaf-su01-01={}", write(d, "esc.json", &lldp));
    let out = railyard(&[
        "cabling",
        "verify",
        "--example",
        "lab-small",
        "--lldp",
        &arg,
    ]);
    check("lldp text", &out);
    // A newline in a port name cannot fake a line of the report.
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.lines().any(|l| l.starts_with("result: PASS")),
        "{text}"
    );
    assert!(text.contains("swp2\\u{9b}31m\\nresult: PASS"), "{text}");
    let json = railyard(&[
        "cabling",
        "verify",
        "--example",
        "lab-small",
        "--lldp",
        &arg,
        "--format",
        "json",
    ]);
    assert!(!raw_controls(&json.stdout));
    // A conflicting chassis name in an error message.
    let two = format!(
        "{}{}{}",
        chassis_json0("a\u{1b}[31m"),
        chassis_json0("b"),
        json0(&[])
    );
    let two = write(d, "two.json", &two);
    check(
        "lldp error",
        &railyard(&[
            "cabling",
            "verify",
            "--example",
            "lab-small",
            "--lldp",
            &two,
        ]),
    );

    // The spec: ESC sequences in port names (through YAML's `\e`), and a raw ESC byte in the
    // file, which miette would print in its source snippet.
    let ports = railyard::LAB_SMALL
        .replace("ports: [ens1f0]", "ports: [\"ens1f0\\e[2J\\e]0;x\\a\"]")
        .replace("ports: [bmc]", "ports: [\"bmc\\u009b6n\"]");
    assert_ne!(ports, railyard::LAB_SMALL);
    let spec = write(d, "ports.yaml", &ports);
    let empty = format!("leaf-su01-01={}", write(d, "empty.json", &json0(&[])));
    check(
        "spec ports, verify",
        &railyard(&["cabling", "verify", &spec, "--lldp", &empty]),
    );
    let named = railyard::LAB_SMALL.replace("name: lab-small", "name: \"lab\\e[31m\\u009b6n\"");
    let spec = write(d, "name.yaml", &named);
    check("spec name, validate", &railyard(&["validate", &spec]));
    let json = railyard(&["validate", &spec, "--format", "json"]);
    assert!(!raw_controls(&json.stdout) && !raw_controls(&json.stderr));
    // The name reaches the JSON reader intact: escaped by the diagnostic that quotes it (the
    // spec's grammar refuses it), or as JSON `\u` escapes of the raw characters.
    // (`--format json` diagnostics are the command's answer, on stdout.)
    let diags: Value = serde_json::from_slice(&json.stdout).expect("JSON diagnostics");
    let quoted = diags["diagnostics"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        quoted.contains("lab\\u{1b}[31m\\u{9b}6n") || quoted.contains("lab\u{1b}[31m\u{9b}6n"),
        "{diags}"
    );
    check(
        "spec name, verify",
        &railyard(&["cabling", "verify", &spec, "--lldp", &empty]),
    );
    let raw = railyard::LAB_SMALL.replace("site: lab", "site: \"lab\u{1b}[31m\"");
    let spec = write(d, "raw.yaml", &raw);
    for format in ["human", "short"] {
        let out = railyard(&["validate", &spec, "--format", format]);
        assert_eq!(out.status.code(), Some(1), "a raw ESC is not valid YAML");
        check(&format!("raw ESC in the spec, {format}"), &out);
    }
}

// ---------------------------------------------------------------------------------------------
// Real lldpd in network namespaces

fn run(cmd: &str, args: &[&str]) -> Output {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{cmd} {args:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Pids whose parent is `ppid` (lldpd's privilege-separated worker of a monitor).
fn children_of(ppid: u32) -> Vec<u32> {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    rd.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                // `pid (comm) state ppid …`: comm may hold spaces, so split after the `)`.
                s.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                    .and_then(|p| p.parse::<u32>().ok())
                    == Some(ppid)
            })
        })
        .collect()
}

/// Whether any live (not zombie) lldpd process exists, ours or anyone's.
fn lldpd_running() -> bool {
    std::fs::read_dir("/proc").is_ok_and(|rd| {
        rd.flatten().any(|e| {
            std::fs::read_to_string(e.path().join("stat")).is_ok_and(|s| {
                s.contains("(lldpd)")
                    && s.rsplit_once(')')
                        .and_then(|(_, rest)| rest.split_whitespace().next())
                        != Some("Z")
            })
        })
    })
}

/// Everything the lab made; `Drop` removes it all, also when a test assertion panics.
struct Lab {
    namespaces: Vec<String>,
    daemons: Vec<Child>,
    dir: PathBuf,
    made_run_lldpd: bool,
}

impl Drop for Lab {
    fn drop(&mut self) {
        for d in &mut self.daemons {
            let pid = d.id();
            if d.try_wait().ok().flatten().is_none() {
                for c in children_of(pid) {
                    let _ = Command::new("kill")
                        .args(["-TERM", &c.to_string()])
                        .status();
                }
                let _ = Command::new("kill")
                    .args(["-TERM", &pid.to_string()])
                    .status();
            }
        }
        let deadline = Instant::now() + Duration::from_secs(3);
        for d in &mut self.daemons {
            while d.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            if d.try_wait().ok().flatten().is_none() {
                for c in children_of(d.id()) {
                    let _ = Command::new("kill")
                        .args(["-KILL", &c.to_string()])
                        .status();
                }
                let _ = d.kill();
                let _ = d.wait();
            }
        }
        for ns in &self.namespaces {
            let _ = Command::new("ip")
                .args(["netns", "del", ns])
                .stderr(Stdio::null())
                .status();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
        if self.made_run_lldpd {
            // lldpd's chroot, created by the first lldpd if missing. Keep it while any lldpd
            // (ours being reaped, or someone else's) still runs.
            let deadline = Instant::now() + Duration::from_secs(3);
            while lldpd_running() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
            if !lldpd_running() {
                let _ = std::fs::remove_dir_all("/run/lldpd");
            }
        }
    }
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

#[test]
fn real_lldpd_finds_two_swapped_cables() {
    const TEST: &str = "real_lldpd_finds_two_swapped_cables";
    if !prereq::root(TEST)
        || prereq::program(TEST, "lldpd", "lldpd").is_none()
        || prereq::program(TEST, "lldpcli", "lldpd").is_none()
    {
        return;
    }

    let f = fabric();
    let rows = rows(&f);
    let (u1, u2) = (row(&rows, "c1-su1-l1-u1"), row(&rows, "c1-su1-l1-u2"));
    let mut wires = wires_of(&rows, Tier::LeafSpine);
    swap_b(&mut wires, u1, u2);

    let t_all = Instant::now();
    let prefix = format!("rycv{}-", std::process::id());
    let dir = tempfile::Builder::new()
        .prefix("railyard-lldp-")
        .tempdir()
        .unwrap()
        .keep();
    // lldpcli is setuid `_lldpd`: it must be able to traverse the directory to the sockets.
    std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut lab = Lab {
        namespaces: Vec::new(),
        daemons: Vec::new(),
        dir: dir.clone(),
        made_run_lldpd: !Path::new("/run/lldpd").exists(),
    };

    let t = Instant::now();
    wire_namespaces(&mut lab, &prefix, &wires);
    let t_net = t.elapsed();

    let t = Instant::now();
    start_lldpd(&mut lab, &prefix, &dir);
    let t_first = wait_for_neighbours(&dir, &wires, t);
    let t_lldp = t.elapsed();

    let t = Instant::now();
    let (args, caps) = collect_captures(&dir);
    let t_collect = t.elapsed();

    let expect_ids = ["c1-su1-l1-u1", "c1-su1-l1-u2"];
    check_library_report(&f, &caps, (u1, u2), expect_ids);
    let t_cli = check_cli_reports(&args, &rows, (u1, u2), expect_ids);

    let t = Instant::now();
    drop(lab);
    let t_down = t.elapsed();
    let left = run("ip", &["netns", "list"]);
    assert!(
        !String::from_utf8_lossy(&left.stdout).contains(&prefix),
        "namespaces left behind"
    );
    assert!(!dir.exists(), "scratch directory left behind");
    eprintln!(
        "lldpd lab timings: netns+veth {}, lldpd start → first neighbour {}, → all neighbours {}, \
         collect {}, CLI verify {}, teardown {}, total {}",
        secs(t_net),
        secs(t_first.unwrap_or_default()),
        secs(t_lldp),
        secs(t_collect),
        secs(t_cli),
        secs(t_down),
        secs(t_all.elapsed()),
    );
}

/// A switch's namespace in the lab.
fn ns(prefix: &str, dev: &str) -> String {
    format!("{prefix}{dev}")
}

/// How many wires end on `dev`.
fn ports_of(wires: &[Wire], dev: &str) -> usize {
    wires
        .iter()
        .map(|(a, b)| usize::from(a.0 == dev) + usize::from(b.0 == dev))
        .sum()
}

/// Namespaces and veths, ports named as in the plan; returns when every veth is up.
fn wire_namespaces(lab: &mut Lab, prefix: &str, wires: &[Wire]) {
    for dev in SWITCHES {
        run("ip", &["netns", "add", &ns(prefix, dev)]);
        lab.namespaces.push(ns(prefix, dev));
        run("ip", &["-n", &ns(prefix, dev), "link", "set", "lo", "up"]);
    }
    for ((ad, ap), (bd, bp)) in wires {
        let (na, nb) = (ns(prefix, ad), ns(prefix, bd));
        run(
            "ip",
            &[
                "link", "add", ap, "netns", &na, "type", "veth", "peer", "name", bp, "netns", &nb,
            ],
        );
        run("ip", &["-n", &na, "link", "set", ap, "up"]);
        run("ip", &["-n", &nb, "link", "set", bp, "up"]);
    }
    let deadline = Instant::now() + Duration::from_secs(15);
    for dev in SWITCHES {
        loop {
            let out = run("ip", &["-n", &ns(prefix, dev), "-o", "link", "show", "up"]);
            let up = String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter(|l| l.contains("swp") && l.contains("state UP"))
                .count();
            if up == ports_of(wires, dev) {
                break;
            }
            assert!(Instant::now() < deadline, "{dev}: only {up} veths up");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// One lldpd per namespace (LAB-NOTES recipe: -d foreground, own socket, config file).
fn start_lldpd(lab: &mut Lab, prefix: &str, dir: &Path) {
    for dev in SWITCHES {
        let conf = dir.join(format!("{dev}.conf"));
        std::fs::write(
            &conf,
            format!(
                "configure system hostname {dev}\nconfigure lldp tx-interval 1\n\
                 configure lldp portidsubtype ifname\n"
            ),
        )
        .unwrap();
        let log = std::fs::File::create(dir.join(format!("{dev}.log"))).unwrap();
        let child = Command::new("ip")
            .args(["netns", "exec", &ns(prefix, dev), "lldpd", "-d", "-u"])
            .arg(dir.join(format!("{dev}.sock")))
            .arg("-O")
            .arg(&conf)
            .args(["-I", "swp*"])
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("lldpd starts");
        lab.daemons.push(child);
    }
}

/// `lldpcli` of `dev`'s lldpd, JSON0 output.
fn neighbours(dir: &Path, dev: &str, what: &[&str]) -> Output {
    Command::new("lldpcli")
        .arg("-u")
        .arg(dir.join(format!("{dev}.sock")))
        .args(["-f", "json0"])
        .args(what)
        .output()
        .expect("lldpcli runs")
}

/// Waits until every switch sees a neighbour on every port; returns when the first neighbour
/// appeared (since `started`).
fn wait_for_neighbours(dir: &Path, wires: &[Wire], started: Instant) -> Option<Duration> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut t_first = None;
    for dev in SWITCHES {
        loop {
            let out = neighbours(dir, dev, &["show", "neighbors"]);
            let n = cabling::parse(&String::from_utf8_lossy(&out.stdout))
                .map(|p| p.neighbours.len())
                .unwrap_or(0);
            if n > 0 && t_first.is_none() {
                t_first = Some(started.elapsed());
            }
            if n == ports_of(wires, dev) {
                break;
            }
            if Instant::now() > deadline {
                let log =
                    std::fs::read_to_string(dir.join(format!("{dev}.log"))).unwrap_or_default();
                panic!(
                    "{dev}: {n} of {} neighbours after 30 s; lldpd log:\n{log}",
                    ports_of(wires, dev)
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    t_first
}

/// Collect: spines with their chassis in the file, leaves as DEVICE=FILE. Returns the CLI's
/// `--lldp` arguments and the captures.
fn collect_captures(dir: &Path) -> (Vec<String>, Vec<Capture>) {
    let mut args: Vec<String> = Vec::new();
    let mut caps = Vec::new();
    for dev in SWITCHES {
        let neigh = neighbours(dir, dev, &["show", "neighbors"]);
        assert!(neigh.status.success());
        let path = dir.join(format!("{dev}.json"));
        if dev.starts_with("spine") {
            let chassis = neighbours(dir, dev, &["show", "chassis"]);
            assert!(chassis.status.success());
            let mut text = chassis.stdout;
            text.extend_from_slice(&neigh.stdout);
            std::fs::write(&path, &text).unwrap();
            args.push(path.display().to_string());
            caps.push(cabling::capture(dev, &String::from_utf8_lossy(&text), None).unwrap());
        } else {
            std::fs::write(&path, &neigh.stdout).unwrap();
            args.push(format!("{dev}={}", path.display()));
            caps.push(
                cabling::capture(dev, &String::from_utf8_lossy(&neigh.stdout), Some(dev)).unwrap(),
            );
        }
    }
    (args, caps)
}

/// Through the library: one swapped-ports finding naming both cables, the rest correct.
fn check_library_report(
    f: &Fabric,
    caps: &[Capture],
    (u1, u2): (&Row, &Row),
    expect_ids: [&str; 2],
) {
    let report = cabling::verify(f, caps);
    assert_eq!(report.findings.len(), 1, "{}", report.to_text());
    let fd = &report.findings[0];
    assert_eq!(fd.class, Class::Miswired);
    assert_eq!(fd.kind, Some(MiswireKind::SwappedPorts));
    assert!(fd.swapped);
    assert_eq!(report.cables_to_fix(), expect_ids);
    let labels: Vec<&str> = fd.cables.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, [u1.label.as_str(), u2.label.as_str()]);
    assert_eq!(report.summary.correct, 6);
    assert_eq!(report.summary.missing, 0);
    assert_eq!(report.summary.unexpected, 0);
    assert!(report.captures.iter().all(|c| c.planned));
    for c in &report.captures {
        assert_eq!(c.format, InputFormat::LldpdJson0);
    }
}

/// Through the CLI binary: JSON and text. Returns how long the JSON run took.
fn check_cli_reports(
    args: &[String],
    rows: &[Row],
    (u1, u2): (&Row, &Row),
    expect_ids: [&str; 2],
) -> Duration {
    let t = Instant::now();
    let mut cli: Vec<&str> = vec![
        "cabling",
        "verify",
        "--example",
        "lab-small",
        "--format",
        "json",
        "--lldp",
    ];
    cli.extend(args.iter().map(String::as_str));
    let out = railyard(&cli);
    let t_cli = t.elapsed();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{v:#}");
    assert_eq!(findings[0]["kind"], "swapped-ports");
    let named: Vec<(&str, &str)> = findings[0]["cables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["cable_id"].as_str().unwrap(),
                c["label"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        named,
        [
            ("c1-su1-l1-u1", u1.label.as_str()),
            ("c1-su1-l1-u2", u2.label.as_str())
        ]
    );
    cli[5] = "text";
    let out = railyard(&cli);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    for r in rows {
        let named = text.contains(&r.label) || text.contains(&format!("cable {} ", r.id));
        assert_eq!(
            named,
            expect_ids.contains(&r.id.as_str()),
            "cable {} ({}) in the text report:\n{text}",
            r.id,
            r.label
        );
    }
    t_cli
}
