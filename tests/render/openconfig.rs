//! The `openconfig` render target: every Ethernet switch whose OS the spec declares loaded over
//! NETCONF (`push: {netconf: [...]}`) gets `configs/<device>/openconfig.xml`, and no other
//! switch does; the real `yanglint` (Debian `libyang2-tools`) validates each payload against the
//! vendored OpenConfig models in `tests/fixtures/yang/`, and each carries every cabled port with
//! the intent's MTU and description.

use crate::common;
use crate::prereq;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use railyard::intent::Intents;
use railyard::meaning::netconf::payload::ConfigPayload;
use railyard::meaning::netconf::xml::Element;
use railyard::output::OutputFile;

const NS_BASE: &str = "urn:ietf:params:xml:ns:netconf:base:1.0";
const NS_IF: &str = "http://openconfig.net/yang/interfaces";
const NS_IP: &str = "http://openconfig.net/yang/interfaces/ip";
const NS_IANAIFT: &str = "urn:ietf:params:xml:ns:yang:iana-if-type";

/// The modules the payload's namespaces come from (their imports are found on the search path).
const MODULES: &[&str] = &["openconfig-interfaces", "openconfig-if-ip", "iana-if-type"];

fn yang_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/yang")
}

/// `yanglint`, or `None` when it is missing and the developer opted out (`tests/prereq`).
fn yanglint(test: &str) -> Option<PathBuf> {
    prereq::program(test, "yanglint", "libyang2-tools")
}

/// The content of the NETCONF `<config>` envelope: what `yanglint -t config` validates.
fn config_content(xml: &str) -> &str {
    let start = xml.find("<config").expect("a <config> element");
    let open_end = start
        + xml[start..]
            .find('>')
            .expect("end of the <config> start tag")
        + 1;
    let close = xml.rfind("</config>").expect("</config>");
    &xml[open_end..close]
}

/// Run yanglint on one payload; `Err` carries its error lines (warnings about the models are
/// dropped: libyang reports dozens on the OpenConfig set itself).
fn validate(yanglint: &Path, dir: &Path, name: &str, xml: &str) -> Result<(), String> {
    let yang = yang_dir();
    let path = dir.join(format!("{}.xml", name.replace('/', "_")));
    std::fs::write(&path, config_content(xml)).expect("write payload");
    let mut cmd = Command::new(yanglint);
    cmd.arg("-i").arg("-p").arg(&yang).args(["-t", "config"]);
    for m in MODULES {
        cmd.arg(yang.join(format!("{m}.yang")));
    }
    let out = cmd.arg(&path).output().expect("run yanglint");
    if out.status.success() {
        return Ok(());
    }
    let errors: Vec<String> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| !l.starts_with("libyang warn"))
        .map(str::to_string)
        .collect();
    Err(format!(
        "{name}: yanglint exit {}:\n{}",
        out.status,
        errors.join("\n")
    ))
}

/// Every OS declared loaded over NETCONF.
const EVERY_OS_OVER_NETCONF: &str = "\npush:\n  netconf: [frr, nvue, sonic, eos]\n";

/// The intents and the switch configs of an example whose every OS is declared loaded over
/// NETCONF.
fn render(inventory: &str) -> (Intents, Vec<OutputFile>) {
    let text = common::inventory(inventory) + EVERY_OS_OVER_NETCONF;
    let configs = common::outputs_of(&text, &[railyard::output::OutputGroup::Configs]);
    (common::intents(&text), configs)
}

/// Only a switch whose OS the spec declares loaded over NETCONF gets the payload: none by
/// default, each switch of the declared OS, none for an OS no switch of the spec runs.
#[test]
fn openconfig_only_where_declared() {
    use railyard::model::Platform;
    use railyard::output::OutputGroup;
    let count = |extra: &str| {
        let text = common::inventory("lab-small.yaml") + extra;
        payloads(&common::outputs_of(&text, &[OutputGroup::Configs])).len()
    };
    assert_eq!(count(""), 0, "nothing declared: no openconfig.xml");
    let intents = common::intents(&common::inventory("lab-small.yaml"));
    let on = |p: Platform| intents.devices.values().filter(|d| d.platform == p).count();
    let used = intents.devices.values().next().expect("a switch").platform;
    let unused = Platform::ALL
        .into_iter()
        .find(|p| on(*p) == 0)
        .expect("an OS lab-small does not run");
    let declare = |p: Platform| format!("\npush:\n  netconf: [{}]\n", p.row().name);
    assert_eq!(count(&declare(used)), on(used), "every {used:?} switch");
    assert_eq!(count(&declare(unused)), 0, "no {unused:?} switch");
}

fn payloads(files: &[OutputFile]) -> Vec<(&str, String)> {
    files
        .iter()
        .filter(|f| f.path.starts_with("configs/") && f.path.ends_with("/openconfig.xml"))
        .map(|f| {
            (
                f.path.as_str(),
                String::from_utf8(f.bytes.clone()).expect("utf-8"),
            )
        })
        .collect()
}

fn text<'a>(e: &'a Element, ns: &str, name: &str) -> Option<&'a str> {
    e.child_text(ns, name)
}

/// The interfaces of one payload by name, parsed namespace-aware the way the `netconf` driver
/// reads it.
fn interfaces(xml: &str) -> BTreeMap<String, Element> {
    let payload = ConfigPayload::from_xml(xml.as_bytes()).expect("the netconf driver accepts it");
    let root = payload.tree();
    assert_eq!((root.ns.as_str(), root.name.as_str()), (NS_BASE, "config"));
    let ifs = root.child(NS_IF, "interfaces").expect("<interfaces>");
    ifs.children
        .iter()
        .map(|i| {
            assert_eq!((i.ns.as_str(), i.name.as_str()), (NS_IF, "interface"));
            let name = text(i, NS_IF, "name").expect("key").to_string();
            (name, i.clone())
        })
        .collect()
}

/// The addresses (`ip/len`) of one family on subinterface 0.
fn addresses(i: &Element, family: &str) -> Vec<String> {
    let Some(f) = i
        .child(NS_IF, "subinterfaces")
        .and_then(|s| s.child(NS_IF, "subinterface"))
        .and_then(|s| s.child(NS_IP, family))
        .and_then(|f| f.child(NS_IP, "addresses"))
    else {
        return Vec::new();
    };
    f.children
        .iter()
        .map(|a| {
            let c = a.child(NS_IP, "config").expect("address config");
            format!(
                "{}/{}",
                text(c, NS_IP, "ip").expect("ip"),
                text(c, NS_IP, "prefix-length").expect("prefix-length")
            )
        })
        .collect()
}

/// Every switch has a payload that yanglint accepts, with every cabled port, MTU, description,
/// type, `enabled` and addresses as in the intent.
fn check(inventory: &str) {
    let (intents, files) = render(inventory);
    let payloads = payloads(&files);
    let switches: Vec<String> = intents.devices.keys().cloned().collect();
    assert!(!switches.is_empty());
    let mut rendered: Vec<String> = payloads
        .iter()
        .map(|(p, _)| p.split('/').nth(1).expect("configs/<device>/").to_string())
        .collect();
    rendered.sort();
    let mut expected = switches.clone();
    expected.sort();
    assert_eq!(rendered, expected, "one openconfig.xml per Ethernet switch");

    for (path, xml) in &payloads {
        let device = path.split('/').nth(1).expect("device");
        let d = &intents.devices[device];
        let ifs = interfaces(xml);
        assert!(!d.interfaces.is_empty(), "{device}: no cabled ports?");
        for p in &d.interfaces {
            let i = ifs
                .get(&p.name)
                .unwrap_or_else(|| panic!("{path}: cabled port {} missing", p.name));
            let c = i.child(NS_IF, "config").expect("config");
            assert_eq!(text(c, NS_IF, "name"), Some(p.name.as_str()), "{path}");
            assert_eq!(
                text(c, NS_IF, "mtu"),
                Some(p.mtu.to_string().as_str()),
                "{path} {}: MTU",
                p.name
            );
            assert_eq!(
                text(c, NS_IF, "description"),
                Some(p.description.as_str()),
                "{path} {}: description",
                p.name
            );
            assert_eq!(text(c, NS_IF, "enabled"), Some("true"), "{path}");
            let t = c.child(NS_IF, "type").expect("type");
            assert_eq!(
                t.text_ns.as_deref(),
                Some(NS_IANAIFT),
                "{path}: type namespace"
            );
            assert!(t.text.ends_with(":ethernetCsmacd"), "{path}: {}", t.text);
            let want4: Vec<String> = p.ipv4.iter().map(|a| a.to_string()).collect();
            let want6: Vec<String> = p.ipv6.iter().map(|a| a.to_string()).collect();
            assert_eq!(addresses(i, "ipv4"), want4, "{path} {}: IPv4", p.name);
            assert_eq!(addresses(i, "ipv6"), want6, "{path} {}: IPv6", p.name);
        }
        // The loopback carries the router address.
        if let Some(a) = d.loopback.ipv4 {
            let lo = ifs
                .values()
                .find(|i| {
                    i.child(NS_IF, "config")
                        .and_then(|c| c.child(NS_IF, "type"))
                        .is_some_and(|t| t.text.ends_with(":softwareLoopback"))
                        && addresses(i, "ipv4").contains(&a.to_string())
                })
                .unwrap_or_else(|| panic!("{path}: no loopback with {a}"));
            assert!(lo.child(NS_IF, "config").is_some());
        }
        // The management port is in the tree (the driver replaces the whole `interfaces` tree).
        if let Some(m) = &d.system.mgmt {
            assert!(ifs.contains_key(&m.interface), "{path}: management port");
        }
    }

    let Some(yanglint) = yanglint(inventory) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let errors: Vec<String> = payloads
        .iter()
        .filter_map(|(p, xml)| validate(&yanglint, dir.path(), p, xml).err())
        .collect();
    assert!(
        errors.is_empty(),
        "{} of {} payloads rejected by yanglint:\n{}",
        errors.len(),
        payloads.len(),
        errors.join("\n\n")
    );
}

#[test]
fn lab_small_openconfig_validates() {
    check("lab-small.yaml");
}

#[test]
fn spectrum_x_cloud_openconfig_validates() {
    check("spectrum-x-cloud.yaml");
}

/// The check has teeth: yanglint rejects a wrong value and an unknown node in a rendered payload.
#[test]
fn yanglint_rejects_broken_payloads() {
    let Some(yanglint) = yanglint("yanglint_rejects_broken_payloads") else {
        return;
    };
    let (_, files) = render("lab-small.yaml");
    let (path, xml) = payloads(&files).into_iter().next().expect("a payload");
    let dir = tempfile::tempdir().expect("tempdir");
    validate(&yanglint, dir.path(), path, &xml).expect("the rendered payload is valid");
    let bad_mtu = xml.replacen("<mtu>", "<mtu>x", 1);
    assert_ne!(bad_mtu, xml);
    let err = validate(&yanglint, dir.path(), "bad-mtu", &bad_mtu).unwrap_err();
    assert!(err.contains("mtu"), "{err}");
    let unknown = xml.replacen("<enabled>", "<bogus>1</bogus><enabled>", 1);
    let err = validate(&yanglint, dir.path(), "unknown", &unknown).unwrap_err();
    assert!(err.contains("bogus"), "{err}");
}

/// Descriptions are escaped by the XML writer, not pasted.
#[test]
fn descriptions_are_escaped() {
    let (mut intents, _) = render("lab-small.yaml");
    let d = intents.devices.values_mut().next().expect("a switch");
    d.interfaces[0].description = "a<b & \"c\"".into();
    let env = railyard::render::Templates::default();
    let files = railyard::render::device(&env.environment(), d, &[d.platform]).expect("render");
    let f = files
        .iter()
        .find(|f| f.path.ends_with("/openconfig.xml"))
        .expect("openconfig.xml");
    let xml = String::from_utf8(f.bytes.clone()).expect("utf-8");
    assert!(!xml.contains("a<b"), "unescaped description");
    let ifs = interfaces(&xml);
    let c = ifs[&d.interfaces[0].name].child(NS_IF, "config").unwrap();
    assert_eq!(text(c, NS_IF, "description"), Some("a<b & \"c\""));
}

/// Every platform's loopback naming (EOS: VTEP on Loopback1) yields a valid payload; the tenant
/// cloud has EVPN VTEPs.
#[test]
fn every_platform_payload_validates() {
    use railyard::model::Platform;
    let (intents, _) = render("spectrum-x-cloud-tenants.yaml");
    let leaf = intents
        .devices
        .values()
        .find(|d| d.evpn.as_ref().is_some_and(|e| e.vtep.is_some()))
        .expect("a VTEP leaf");
    let env = railyard::render::Templates::default().environment();
    let dir = tempfile::tempdir().expect("tempdir");
    let yanglint = yanglint("every_platform_payload_validates");
    for platform in [
        Platform::Nvue,
        Platform::Sonic,
        Platform::Frr,
        Platform::Eos,
    ] {
        let mut d = leaf.clone();
        d.platform = platform;
        let xml = match railyard::render::device(&env, &d, &[platform]) {
            Ok(files) => files
                .into_iter()
                .find(|f| f.path.ends_with("/openconfig.xml"))
                .map(|f| String::from_utf8(f.bytes).expect("utf-8"))
                .expect("openconfig.xml"),
            // Another platform's renderer may refuse this intent (e.g. port names); the
            // OpenConfig payload alone is then checked through the other platforms.
            Err(e) => {
                eprintln!("{platform:?}: platform render refused: {e}");
                continue;
            }
        };
        let ifs = interfaces(&xml);
        let vtep = d.evpn.as_ref().and_then(|e| e.vtep).expect("vtep");
        assert!(
            ifs.values()
                .any(|i| addresses(i, "ipv4").contains(&vtep.to_string())),
            "{platform:?}: VTEP {vtep} on no interface"
        );
        if platform == Platform::Eos {
            assert!(ifs.contains_key("Loopback0"), "EOS Loopback0");
        }
        if let Some(y) = &yanglint {
            validate(y, dir.path(), &format!("{platform:?}"), &xml)
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

/// `railyard push` with the netconf driver on a build that has no `openconfig.xml` for the
/// device (its OS not declared) is refused before anything is sent, naming the key to set.
#[test]
fn netconf_push_of_an_undeclared_switch_names_the_key() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("out");
    let run = |args: &[&std::ffi::OsStr]| {
        Command::new(env!("CARGO_BIN_EXE_railyard"))
            .args(args)
            .output()
            .expect("railyard runs")
    };
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("inventories/lab-small.yaml");
    let b = run(&[
        "build".as_ref(),
        spec.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "--only".as_ref(),
        "configs".as_ref(),
    ]);
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let intents = common::intents(&common::inventory("lab-small.yaml"));
    let leaf = intents.devices.keys().next().expect("a switch");
    assert!(!out.join(format!("configs/{leaf}/openconfig.xml")).exists());
    let targets = dir.path().join("targets.yaml");
    std::fs::write(
        &targets,
        format!(
            "defaults: {{user: admin, driver: netconf}}\ndevices:\n  {leaf}: {{address: 127.0.0.1}}\n"
        ),
    )
    .expect("targets");
    let p = run(&[
        "push".as_ref(),
        "--from".as_ref(),
        out.as_os_str(),
        "--targets".as_ref(),
        targets.as_os_str(),
        "--dry-run".as_ref(),
    ]);
    let err = String::from_utf8_lossy(&p.stderr);
    assert_eq!(p.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!("configs/{leaf}/openconfig.xml")),
        "{err}"
    );
    assert!(err.contains("`push.netconf`"), "{err}");
}
