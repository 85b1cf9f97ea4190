//! Tenant plans: selection, values derived from stable ids, the isolation proof and stability
//! under adding a tenant (issue 4). Expected values come from the spec's declared ids and the
//! documented derivations (VNI = 100000 + id, RT = 65000:VNI, PKey = 0x0100 + id, OpenSM doc/partition-config.txt (linux-rdma/opensm),
//! §5.1), not from the program's output.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use railyard::intent::Intents;
use railyard::tenancy::Tenant;

fn tenant<'a>(i: &'a Intents, name: &str) -> &'a Tenant {
    i.tenants
        .tenants
        .iter()
        .find(|t| t.name == name)
        .expect("tenant")
}

#[test]
fn research_cloud_projects_get_a_vrf_each_on_the_leaves_of_their_nodes() {
    let i = intents(&inventory("mdx-research-cloud.yaml"));
    assert_eq!(i.tenants.tenants.len(), 4);
    let llm = tenant(&i, "llm-pretrain");
    // the mdx research cloud (mdx.jp) as its operators describe it: the LLM project used 16 nodes (128 A100s).
    assert_eq!(llm.nodes.len(), 16);
    assert_eq!((llm.l3vni, llm.vlan), (100_001, 101));
    assert_eq!(llm.route_target, "65000:100001");
    // Its VRF exists on exactly the two rack leaves of SUs 1 and 2, with 2 NIC ports per node.
    let leaves: BTreeSet<&str> = llm.ports.keys().map(String::as_str).collect();
    assert_eq!(leaves, BTreeSet::from(["leaf-su01-01", "leaf-su02-01"]));
    assert_eq!(llm.ports.values().map(Vec::len).sum::<usize>(), 16 * 2);
    // The shared Lustre service is the only extra import.
    assert_eq!(
        llm.import,
        vec!["65000:100001".to_string(), "65000:100900".to_string()]
    );
    let climate = tenant(&i, "proj-climate");
    assert_eq!(climate.nodes.len(), 8, "64 GPUs = 8 nodes of 8");
    // Every tenant port is in its VRF on the leaf, and each VRF lives only where its ports are.
    for t in &i.tenants.tenants {
        for (leaf, ports) in &t.ports {
            let d = &i.devices[leaf];
            let v = d
                .vrfs
                .iter()
                .find(|v| v.name == t.vrf)
                .expect("VRF on the leaf");
            assert_eq!(v.l3vni, t.l3vni);
            assert_eq!(&v.interfaces, ports);
            for p in ports {
                let x = d.interfaces.iter().find(|x| &x.name == p).unwrap();
                assert_eq!(x.vrf.as_deref(), Some(t.vrf.as_str()));
            }
        }
        for d in i
            .devices
            .values()
            .filter(|d| !t.ports.contains_key(&d.hostname))
        {
            assert!(
                d.vrfs.iter().all(|v| v.name != t.vrf),
                "{} on {}",
                t.vrf,
                d.hostname
            );
        }
    }
    // Spines relay EVPN but hold no tenant VRF.
    for s in ["spine01", "spine02"] {
        assert!(i.devices[s].evpn.is_some() && i.devices[s].vrfs.is_empty());
    }
}

#[test]
fn no_port_is_in_two_tenants_and_no_value_is_shared() {
    for inv in ["mdx-research-cloud.yaml", "spectrum-x-cloud-tenants.yaml"] {
        let i = intents(&inventory(inv));
        let mut owner: BTreeMap<(String, String), &str> = BTreeMap::new();
        for t in &i.tenants.tenants {
            for (leaf, ports) in &t.ports {
                for p in ports {
                    assert!(
                        owner.insert((leaf.clone(), p.clone()), &t.name).is_none(),
                        "{leaf}:{p}"
                    );
                }
            }
        }
        let vnis: BTreeSet<u32> = i.tenants.tenants.iter().map(|t| t.l3vni).collect();
        let rts: BTreeSet<&str> = i
            .tenants
            .tenants
            .iter()
            .map(|t| t.route_target.as_str())
            .collect();
        assert_eq!(vnis.len(), i.tenants.tenants.len());
        assert_eq!(rts.len(), i.tenants.tenants.len());
        // RT graph: no tenant imports another tenant's export.
        for a in &i.tenants.tenants {
            for b in i.tenants.tenants.iter().filter(|b| b.name != a.name) {
                assert!(a.export.iter().all(|rt| !b.import.contains(rt)));
            }
        }
    }
}

#[test]
fn gpu_count_tenant_is_placed_in_one_su() {
    let i = intents(&inventory("spectrum-x-cloud-tenants.yaml"));
    let b = tenant(&i, "cust-b");
    assert_eq!(b.nodes.len(), 32, "256 GPUs on 8-GPU nodes");
    // SU 1 is cust-a's and SU 3 is half taken by cust-c: the whole of SU 2 fits best.
    let expected: Vec<String> = (33..=64).map(|n| format!("gpu{n:03}")).collect();
    assert_eq!(b.nodes, expected);
    // Storage VRFs: the tenant's storage ports are on the storage leaves too.
    assert!(b.ports.keys().any(|l| l.starts_with("stor-leaf")));
}

#[test]
fn adding_a_fourth_tenant_changes_no_byte_of_the_first_three() {
    let three = intents(&inventory("spectrum-x-cloud-tenants.yaml"));
    let four = intents(&format!(
        "{}  - name: cust-d\n    id: 4\n    nodes: {{range: [81, 96]}}\n",
        inventory("spectrum-x-cloud-tenants.yaml")
    ));
    assert_eq!(four.tenants.tenants.len(), 4);
    for t in &three.tenants.tenants {
        let after = tenant(&four, &t.name);
        assert_eq!(
            railyard::output::yaml::to_string(t).unwrap(),
            railyard::output::yaml::to_string(after).unwrap(),
            "tenant {} changed",
            t.name
        );
    }
    // And the leaves serving only the first three tenants render the same configs.
    let a = outputs(&inventory("spectrum-x-cloud-tenants.yaml"));
    let b = outputs(&format!(
        "{}  - name: cust-d\n    id: 4\n    nodes: {{range: [81, 96]}}\n",
        inventory("spectrum-x-cloud-tenants.yaml")
    ));
    for leaf in ["leaf-su01-01", "leaf-su02-03"] {
        let path = format!("configs/{leaf}/nv-set.sh");
        assert_eq!(file(&a, &path), file(&b, &path), "{path}");
    }
}

#[test]
fn infiniband_tenants_get_partition_keys_and_a_limited_default_partition() {
    let files = outputs(&inventory("dgx-superpod-h100-tenants.yaml"));
    // No GPUs imported: only a template, named so, and no loadable partitions.conf.
    assert!(!files.iter().any(|f| f.path == "tenants/partitions.conf"));
    let conf = file(&files, "tenants/partitions.conf.template");
    assert!(conf.starts_with("# TEMPLATE, NOT LOADABLE"), "{conf}");
    // OpenSM doc/partition-config.txt (linux-rdma/opensm): the default partition limited for everyone, the SM port full.
    assert!(
        conf.lines()
            .any(|l| l == "Default=0x7fff : ALL=limited, SELF=full ;"),
        "{conf}"
    );
    assert!(conf.contains("team-llm=0x0101, ipoib, defmember=full :"));
    assert!(conf.contains("team-rec=0x0102, ipoib, defmember=full :"));
    // 2 SUs of the H100 SuperPOD (31 + 32 nodes, one slot holds the UFM appliances) × 8 ports.
    let llm_members = conf
        .split("team-llm=")
        .nth(1)
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .matches('@')
        .count()
        / 2;
    let i = intents(&inventory("dgx-superpod-h100-tenants.yaml"));
    assert_eq!(llm_members, tenant(&i, "team-llm").nodes.len() * 8);
    assert_eq!(tenant(&i, "team-rec").nodes.len(), 16, "128 GPUs");
    // No Ethernet VRFs for an InfiniBand-only tenancy.
    assert!(i.devices.values().all(|d| d.vrfs.is_empty()));
    let plan = file(&files, "tenants/plan.yaml");
    assert!(plan.contains("pkey: \"0x0101\""), "{plan}");
}

/// Per InfiniBand tenant: an env file whose NCCL_IB_PKEY is the index OpenSM gives the tenant's
/// key (1: the default key holds index 0, see intent/partitions.rs and tests/deliverables/partitions_opensm.rs),
/// UCX_IB_PKEY the key itself (0x0100 + id), and placement on exactly the tenant's nodes.
#[test]
fn infiniband_tenants_get_their_own_env_and_placement() {
    let files = outputs(&inventory("dgx-superpod-h100-tenants.yaml"));
    let i = intents(&inventory("dgx-superpod-h100-tenants.yaml"));
    for (name, id) in [("team-llm", 1u32), ("team-rec", 2)] {
        let env = file(&files, &format!("hosts/tenants/{name}/nccl.env"));
        let var = |k: &str| {
            env.lines()
                .find_map(|l| l.strip_prefix(&format!("{k}=")))
                .map(str::to_string)
        };
        assert_eq!(var("NCCL_IB_PKEY").as_deref(), Some("1"), "{name}");
        assert_eq!(var("UCX_IB_PKEY"), Some(format!("{:#06x}", 0x0100 + id)));
        assert!(var("NCCL_IB_HCA").is_some_and(|h| h.starts_with("=mlx5_0:1")));
        assert!(env.contains(&format!("pkeys/1` prints {:#06x}", 0x8100 + id)));
        // Slurm: the partition line names the tenant's nodes, no more, no less.
        let slurm = file(
            &files,
            &format!("hosts/tenants/{name}/slurm-partition.conf"),
        );
        let line = slurm
            .lines()
            .find(|l| l.starts_with("PartitionName="))
            .expect("partition line");
        let nodes = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("Nodes="))
            .expect("Nodes=");
        let mut want = tenant(&i, name).nodes.clone();
        want.sort();
        assert_eq!(expand_hostlist(nodes), want, "{name}");
        // Kueue: the flavor selects the label the script sets on every tenant node.
        let kueue = file(&files, &format!("hosts/tenants/{name}/kueue.yaml"));
        assert!(kueue.contains(&format!("topology.railyard.dev/tenant: {name}")));
        let script = file(&files, &format!("hosts/tenants/{name}/label-nodes.sh"));
        assert_eq!(script.matches("kubectl label node").count(), want.len());
    }
    // The cluster-wide env warns that tenant jobs need the tenant's file.
    let env = file(&files, "hosts/nccl.env");
    assert!(env.contains("hosts/tenants/<tenant>/nccl.env"));
}

/// `gpu[001-003,005]` → names (the subset of Slurm's hostlist syntax railyard writes).
fn expand_hostlist(h: &str) -> Vec<String> {
    let Some((prefix, rest)) = h.split_once('[') else {
        return vec![h.to_string()];
    };
    let body = rest.strip_suffix(']').expect("closing bracket");
    let mut out = Vec::new();
    for part in body.split(',') {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        let w = lo.len();
        let (lo, hi): (u32, u32) = (lo.parse().expect("num"), hi.parse().expect("num"));
        out.extend((lo..=hi).map(|n| format!("{prefix}{n:0w$}")));
    }
    out
}

/// The host addresses of a leaf's ports, per VRF (`None` = default), from its intent.
fn ports_by_vrf(d: &railyard::intent::DeviceIntent) -> BTreeMap<Option<String>, Vec<ipnet::IpNet>> {
    let mut m: BTreeMap<Option<String>, Vec<ipnet::IpNet>> = BTreeMap::new();
    for i in &d.interfaces {
        if let Some(a) = i
            .ipv4
            .filter(|_| i.kind == railyard::intent::InterfaceKind::Host)
        {
            m.entry(i.vrf.clone()).or_default().push(a.trunc());
        }
    }
    m
}

/// The lines of the `router bgp …` block opened by `head` (up to its `exit`).
fn bgp_block<'a>(conf: &'a str, head: &str) -> Vec<&'a str> {
    conf.lines()
        .skip_while(|l| *l != head)
        .skip(1)
        .take_while(|l| *l != "exit")
        .collect()
}

/// Issue 12 item 3: once ports move into tenant VRFs, the default VRF's policy names only what
/// stays in it, and each tenant VRF announces exactly its own ports — checked on the FRR text.
#[test]
fn default_vrf_policy_names_only_its_own_ports_and_each_vrf_aggregates_its_own() {
    let text = format!(
        "{}\nplatforms: {{default: frr}}\n",
        inventory("spectrum-x-cloud-tenants.yaml")
    );
    let i = intents(&text);
    let files = outputs(&text);
    let covers = |p: &ipnet::IpNet, n: &ipnet::IpNet| p.contains(&n.network());
    let mut leaves_with_vrfs = 0;
    for d in i.devices.values().filter(|d| d.bgp.is_some()) {
        let by_vrf = ports_by_vrf(d);
        if by_vrf.keys().all(Option::is_none) {
            continue;
        }
        leaves_with_vrfs += 1;
        let conf = file(&files, &format!("configs/{}/frr.conf", d.hostname));
        let asn = d.bgp.as_ref().unwrap().asn;
        let prefix = |l: &str, key: &str| -> Option<ipnet::IpNet> {
            l.trim()
                .strip_prefix(key)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        };
        // The default VRF: its prefix list and aggregates touch no tenant port.
        // `ip prefix-list CONNECTED-TO-BGP seq N permit P [le L]` and the default instance's
        // `aggregate-address P summary-only`.
        let default_rules: Vec<ipnet::IpNet> = conf
            .lines()
            .filter_map(|l| {
                let rest = l.strip_prefix("ip prefix-list CONNECTED-TO-BGP seq ")?;
                rest.split_whitespace().nth(2)?.parse().ok()
            })
            .chain(
                bgp_block(&conf, &format!("router bgp {asn}"))
                    .iter()
                    .filter_map(|l| prefix(l, "aggregate-address")),
            )
            .collect();
        for (vrf, ports) in by_vrf.iter().filter(|(v, _)| v.is_some()) {
            for p in ports {
                assert!(
                    !default_rules.iter().any(|r| covers(r, p)),
                    "{}: the default VRF names {p} of VRF {vrf:?}",
                    d.hostname
                );
            }
        }
        // Each tenant VRF: aggregates in its own BGP instance cover all its ports and no other.
        for v in &d.vrfs {
            let aggs: Vec<ipnet::IpNet> =
                bgp_block(&conf, &format!("router bgp {asn} vrf {}", v.name))
                    .iter()
                    .filter_map(|l| prefix(l, "aggregate-address"))
                    .collect();
            assert!(!aggs.is_empty(), "{} vrf {}", d.hostname, v.name);
            for p in &by_vrf[&Some(v.name.clone())] {
                assert!(
                    aggs.iter().any(|a| covers(a, p)),
                    "{} vrf {}: {p}",
                    d.hostname,
                    v.name
                );
            }
            for (other, ports) in by_vrf
                .iter()
                .filter(|(o, _)| o.as_deref() != Some(v.name.as_str()))
            {
                for p in ports {
                    assert!(
                        !aggs.iter().any(|a| covers(a, p)),
                        "{} vrf {} covers {p} of {other:?}",
                        d.hostname,
                        v.name
                    );
                }
            }
            assert!(conf.contains(&format!(
                "  redistribute connected route-map CONNECTED-TO-BGP-{}\n",
                v.name
            )));
        }
    }
    assert!(
        leaves_with_vrfs >= 6,
        "{leaves_with_vrfs} leaves with tenant VRFs"
    );
    // The example: leaf-su01-01 carries only cust-a ports, so its default VRF announces
    // its loopback and VTEP and no host block at all.
    let leaf = &i.devices["leaf-su01-01"];
    assert!(leaf.bgp.as_ref().unwrap().aggregates.is_empty());
    assert_eq!(leaf.vrfs[0].aggregates.len(), 1);
}

/// A node range reaching past the cluster was taken as its installed part: `[81, 120]` on
/// 3 SUs × 32 positions gave the tenant gpu081–gpu096 without a word. It is a located error
/// now, at the range, naming the positions; a range inside the cluster still compiles.
#[test]
fn a_node_range_past_the_last_position_is_refused_not_clipped() {
    let base = inventory("spectrum-x-cloud-tenants.yaml");
    let spec = format!("{base}  - name: cust-d\n    id: 4\n    nodes: {{range: [81, 120]}}\n");
    let c = railyard::compile(&railyard::diag::SourceFile::new("spec.yaml", spec.as_str()));
    assert!(c.design.is_none(), "a clipped range must not compile");
    let d = c
        .diagnostics
        .iter()
        .find(|d| d.message.contains("[81, 120]"))
        .expect("a diagnostic naming the range");
    assert_eq!(d.severity, railyard::diag::Severity::Error);
    assert!(d.message.contains("1–96"), "{}", d.message);
    let span = d.span.expect("located");
    assert!(spec[span.start as usize..].starts_with("[81, 120]"));
    let inside = format!("{base}  - name: cust-d\n    id: 4\n    nodes: {{range: [81, 96]}}\n");
    assert_eq!(tenant(&intents(&inside), "cust-d").nodes.len(), 16);
}

/// mdx's shared Lustre is imported by its projects' VRFs, but nothing hosts it: no VRF exports
/// its route target (65000:100900) and its prefixes are in no config. That was silent; the
/// spec now gets a warning at the service's name (RY0809), and nothing renders an export.
#[test]
fn an_unhosted_shared_service_is_said_not_silent() {
    let spec = inventory("mdx-research-cloud.yaml");
    let c = railyard::compile(&railyard::diag::SourceFile::new("mdx.yaml", spec.as_str()));
    let d = c
        .diagnostics
        .iter()
        .find(|d| d.code.id == "RY0809")
        .expect("the unhosted service is reported");
    assert_eq!(d.severity, railyard::diag::Severity::Warning);
    assert!(d.message.contains("65000:100900"), "{}", d.message);
    let span = d.span.expect("located");
    let at = span.start as usize;
    assert_eq!(&spec[at..at + span.len as usize], "lustre");
    // The fact the warning states, read from the build: no rendered config exports that RT.
    let files = outputs(&spec);
    assert!(
        files
            .iter()
            .filter(|f| f.path.starts_with("configs/"))
            .all(|f| {
                let text = String::from_utf8_lossy(&f.bytes);
                !text
                    .lines()
                    .any(|l| l.contains("65000:100900") && l.contains("export"))
            })
    );
}
