//! Stable diagnostic codes. A code never changes meaning; retired codes are never reused.
//! `railyard explain RYxxxx` prints the `explain` text.

use serde::{Serialize, Serializer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Code {
    pub id: &'static str,
    pub title: &'static str,
    pub explain: &'static str,
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id)
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id)
    }
}

impl Code {
    pub fn find(id: &str) -> Option<Code> {
        ALL_CODES
            .iter()
            .copied()
            .find(|c| c.id.eq_ignore_ascii_case(id))
    }
}

macro_rules! codes {
    ($($name:ident = $id:literal, $title:literal, $explain:literal;)*) => {
        $(pub const $name: Code = Code { id: $id, title: $title, explain: $explain };)*
        /// Every code, in numeric order.
        pub const ALL_CODES: &[Code] = &[$($name),*];
    };
}

codes! {
    YAML_SYNTAX = "RY0001", "YAML syntax error",
        "The spec is not well-formed YAML. The location points at the first place the parser could not \
         continue. Fix the indentation, quoting or bracket there and run again.";
    INVALID_VALUE = "RY0002", "value has the wrong type or form",
        "A key holds a value of the wrong type (a list where a number is expected, a negative count, \
         a misspelt enum value), or a string outside the grammar of what it becomes: every name, \
         interface, server, route target or text that railyard writes into a file name, a shell \
         script or a switch configuration must fit its grammar (e.g. a name is letters, digits, \
         `_ . -`; text is one printable line), so no spec value can add a line or a command to \
         what railyard writes. The message names the expected type or grammar.";
    UNKNOWN_KEY = "RY0003", "unknown key",
        "The spec contains a key that railyard does not know. Unknown keys are errors, not ignored, \
         because a misspelt key would otherwise silently fall back to a default. The help line names \
         the closest known key. `railyard schema` prints every allowed key.";
    UNSUPPORTED_VERSION = "RY0004", "unsupported spec version",
        "The `version` key names a spec format this railyard does not read. Version 1 is current.";
    INPUT_LIMIT = "RY0005", "input exceeds the parser's budget",
        "The document is larger or more deeply nested than any cluster spec needs (or uses alias \
         expansion excessively). The parser stops to protect against resource exhaustion.";
    PLACEHOLDER_IN_SPEC = "RY0006", "push-time placeholder in the spec",
        "A spec string holds `${…}`, the form of the placeholders `railyard push` fills from the \
         operator's environment. Only railyard writes them, for the secrets a spec declares by name \
         (`bgp.auth_env`: the name of the variable, never its value), so a placeholder anywhere else \
         could make push send an environment value (a cloud key, a token) to a device. Remove it; \
         to use a secret, name its environment variable where the spec asks for one.";
    VALUE_OUT_OF_BOUNDS = "RY0007", "number outside what any real device has",
        "A count, index, lane or length in a catalog entry or in the `racks:`, `cabling:` or \
         `physical:` sections is outside the bound railyard allows: cages per switch and cage \
         numbers up to 4,096, ports per cage and lanes up to 16 (65,536 logical ports per switch), \
         lengths finite and up to 1,000 km, and so on. The bounds sit above the largest real \
         devices (64-cage Spectrum-4 and 72-cage Quantum-X800 switches, 576-port chassis, \
         8-lane OSFP cages, 72-GPU NVLink domains) with headroom; they keep a typo or a hostile \
         spec from allocating gigabytes or wrapping a cage number. `src/spec/bounds.rs` lists \
         each bound and the device it comes from. Fix the value; if a real device needs more, \
         report it with the vendor's data sheet.";
    UNKNOWN_SWITCH_MODEL = "RY0101", "unknown switch model",
        "A switch model is not in the built-in catalog nor in the spec's `catalog.switches`. \
         `railyard catalog` lists the built-in models; add your own under `catalog.switches`.";
    UNKNOWN_NODE_MODEL = "RY0102", "unknown node model",
        "The node model is not in the built-in catalog nor in the spec's `catalog.nodes`.";
    BAD_CATALOG_ENTRY = "RY0103", "invalid catalog entry",
        "A hardware model in the catalog is inconsistent: no ports, a breakout that needs more lanes than \
         the cage has, a node without compute NICs, or a transport the fabric does not use.";
    TRANSPORT_MISMATCH = "RY0104", "switch model does not speak the fabric's transport",
        "An InfiniBand switch was chosen for an Ethernet fabric or the other way round.";
    PLATFORM_ON_INFINIBAND = "RY0105", "network OS named for InfiniBand switches",
        "`platforms` names an OS for a role whose fabric is InfiniBand. InfiniBand switches take no \
         per-switch configuration from railyard; the subnet manager (OpenSM/UFM) configures them, and \
         railyard writes its `opensm.conf` and root-switch list instead.";
    NO_PLATFORM = "RY0106", "no network OS for Ethernet switches",
        "Neither `platforms` in the spec nor the model's `os` in the catalog names the OS these \
         Ethernet switches run, so railyard cannot render their configs. Set `platforms.<role>` or \
         add `os:` to the model.";
    SONIC_NO_PLATFORM_DATA = "RY0110", "no SONiC platform data for the switch model",
        "These switches run SONiC, but their model names no SONiC platform and HWSKU that railyard \
         carries (the model's `sonic: {platform, hwsku}` in the catalog). SONiC's port table \
         (names, SerDes lanes, aliases, breakout modes) and its buffer templates are the vendor's \
         per-platform files (sonic-buildimage `device/<vendor>/<platform>/`); railyard renders them \
         from its copies in `catalog/sonic/` and never guesses them. `railyard catalog` lists the \
         models with SONiC data; use one of them, pick another OS for the role under \
         `platforms`, or name a carried platform and HWSKU in the model's `sonic:` key.";
    SONIC_BREAKOUT_UNSUPPORTED = "RY0111", "breakout not offered by the SONiC platform",
        "A cage would run in a breakout (port count and speed) that the SONiC platform's \
         `platform.json` does not list for that port, so SONiC's dynamic port breakout cannot \
         create the ports. The message lists the modes the platform offers; run the cage in one \
         of them (change the port or uplink speed), or use another OS for the role.";
    SONIC_NO_HEADROOM = "RY0112", "lossless port outside the HWSKU's headroom table",
        "On SONiC the headroom of a lossless priority group comes from the HWSKU's \
         `pg_profile_lookup.ini`, a table by port speed and cable length (5 m, 40 m, 300 m on \
         NVIDIA Spectrum). A lossless port whose speed is not in the table, or whose cable is \
         longer than its longest row, gets no lossless profile (buffermgrd refuses it), so PFC \
         could drop. Shorten the run, slow the port to a tabulated speed, or make the class \
         lossy (`roce.mode: lossy`).";
    SONIC_LOSSLESS_PRIORITY = "RY0113", "RoCE priority without lossless buffers on SONiC",
        "The SONiC buffer templates of the carried NVIDIA HWSKUs reserve lossless buffers for \
         priority groups and queues 3-4 only (`BUFFER_PG <port>|3-4`, `BUFFER_QUEUE <port>|3-4`), \
         as the SONiC QoS defaults do. A PFC priority outside 3-4 would pause traffic that sits in \
         a lossy queue. Use `roce.priority: 3` (or 4) on SONiC switches.";
    SONIC_SNMP_TRAP_RECEIVERS = "RY0114", "more SNMP trap receivers than SONiC can send to",
        "SONiC sends SNMPv2c traps to one receiver (`SNMP_TRAP_CONFIG|v2TrapDest`, read by \
         docker-snmp's snmpd.conf.j2). railyard configures the first receiver of \
         `services.snmp_traps` on SONiC switches and reports the others; forward traps from that \
         receiver, or list only one.";
    EOS_ON_FOREIGN_MODEL = "RY0115", "EOS rendered for a switch that is not an Arista model",
        "Arista EOS runs on Arista hardware only. A role set to `eos` (in `platforms`, or through the \
         model's catalog `os`) on another vendor's switch model yields a startup-config no switch of \
         that model can load, with port names and breakouts EOS would not number that way. Choose an \
         Arista model for the role (the catalog has `7060x6-64pe`) or the OS the model runs.";
    NVUE_ON_FOREIGN_MODEL = "RY0116", "NVUE rendered for a switch that is not an NVIDIA model",
        "Cumulus Linux (NVUE) runs on NVIDIA Spectrum switches only. A role set to `nvue` on another \
         vendor's model yields files no switch of that model can apply. Choose an NVIDIA model for \
         the role, or the OS the model runs (`eos` on Arista; `sonic` or `frr` are multi-vendor).";
    ZERO_COUNT = "RY0201", "count must be at least 1",
        "Counts (SUs, nodes per SU, spines, planes, rails per leaf) must be positive.";
    RAILS_NIC_MISMATCH = "RY0202", "rails differ from the node's compute NICs",
        "In a rail-optimized fabric every compute NIC of a node is one rail: NIC i goes to the leaf of \
         rail i. `compute.rails` must equal the number of compute NICs of the node model.";
    RAILS_PER_LEAF_DIVIDE = "RY0203", "rails per leaf does not divide the rails",
        "Each leaf serves the same number of rails, so `rails_per_leaf` must divide the rail count \
         (for 8 rails: 1, 2, 4 or 8).";
    LEAF_RADIX = "RY0204", "leaf radix exceeded",
        "The leaf model has too few ports for its downlinks plus the uplinks the oversubscription \
         ratio requires. The message gives the largest number of nodes per SU that fits; alternatively \
         use fewer rails per leaf, a larger leaf model, or a higher oversubscription ratio.";
    BREAKOUT_UNSUPPORTED = "RY0205", "breakout unsupported by the model",
        "Running a cage at the requested speed needs a breakout the switch model does not list \
         (for example 4x400G on an 800G OSFP cage).";
    SPEED_MISMATCH = "RY0206", "speed mismatch between a link's ends",
        "The two ends of a link would run at different speeds (a NIC that cannot run at the leaf's \
         port speed, or leaf uplinks at a speed the spine ports are not set to).";
    OVERSUBSCRIPTION_MISMATCH = "RY0207", "realised oversubscription differs from the declared one",
        "The uplink count that the ports allow gives a different down:up bandwidth ratio than the \
         declared `oversubscription`. Change the ratio, the uplink speed or `uplinks_per_leaf`.";
    UNEQUAL_LINKS = "RY0208", "links per leaf-spine pair unequal",
        "A Clos fabric spreads every leaf's uplinks evenly over the spines of its group; the uplink \
         count must be a multiple of the spine count, otherwise some spines carry more of a leaf's \
         traffic than others and ECMP is uneven.";
    SPINE_TWO_TIER = "RY0209", "spine radix too small for 2-tier",
        "A 2-tier fabric needs every leaf connected to every spine, so at most `uplinks per leaf` \
         spines, each with a port per leaf uplink. Beyond that size use `tiers: 3` (spine groups and \
         a core tier) or a switch with more ports.";
    SWITCH_RADIX = "RY0210", "switch radix exceeded",
        "The declared number of spines or cores has fewer ports than the links that must land on them. \
         The message gives the largest SU count that fits.";
    PLANES_NIC_PORTS = "RY0211", "more planes than NIC ports",
        "A twin-planar fabric connects each compute NIC to both planes, so each NIC needs one port per plane.";
    BAD_RATIO = "RY0212", "malformed oversubscription ratio",
        "Write the ratio as `down:up`, e.g. `1:1` (non-blocking) or `3:1`.";
    POPULATION = "RY0213", "population exceeds the SU",
        "`populated` lists how many node positions of each SU hold a node; it cannot exceed \
         `nodes_per_su` nor name more SUs than `count`.";
    RESERVED_POSITION = "RY0214", "bad reserved node position",
        "A reserved position (for example the UFM slot of a SuperPOD) must name an existing SU and slot.";
    NODES_PER_LEAF = "RY0215", "nodes per leaf does not divide nodes per SU",
        "In a top-of-rack fabric an SU is a whole number of racks, each with its own leaf.";
    TIERS = "RY0216", "tier setting invalid",
        "`tiers` is `auto`, 2 or 3; a core switch model is required for 3 tiers.";
    COUNT_TOO_LARGE = "RY0218", "count too large",
        "The spec asks for more node positions than any cluster has (over four million). Usually a typo \
         in `scalable_units.count` or `nodes_per_su`.";
    ACCESS_LEAF_COUNT = "RY0220", "storage or in-band leaf count invalid",
        "Storage and in-band leaves come in groups: a pair when the nodes have two or more ports for \
         the network (each node has a port on both leaves), a single leaf otherwise. A declared \
         `leaf.count` must be whole groups and at least what the node positions need; extra leaves \
         are built empty so the spines are sized for growth. A spine group's `leaves_per_group` \
         must not split a pair.";
    RDMA_ON_INFINIBAND = "RY0221", "`rdma` set on an InfiniBand fabric",
        "`storage.rdma: true` says the nodes reach storage over RoCE (NVMe-oF, GPUDirect Storage), so \
         the Ethernet storage fabric runs the lossless RoCE class. An InfiniBand fabric is RDMA by \
         itself and takes no such setting; remove the key.";
    NVLINK_DOMAIN_SIZE = "RY0222", "NVLink domains do not fit the SU",
        "A rack-scale node model (one with `rack_scale`, e.g. `gb200-nvl72-tray`) is a compute tray; \
         `rack_scale.trays` of them share one NVLink domain (one NVL72 rack holds 18). \
         `scalable_units.nodes_per_su` must be a whole number of domains: 18, 36, … 144 (NVIDIA's \
         GB200 SU is 8 racks = 144 trays). A domain larger than the SU, or an SU that splits a \
         domain, would put one rack's NVLink domain under two SUs' leaves.";
    NVLINK_RACKS = "RY0223", "rack layout disagrees with the NVLink domain",
        "With a rack-scale node model each NVLink domain is one rack, so `racks.nodes_per_rack` must \
         equal the model's `rack_scale.trays` (or be left out).";
    RACK_PLACEHOLDER = "RY0224", "rack placeholder without a rack-scale model",
        "`{rack}` (the NVLink domain's number) and `{tray}` (the tray's position in its rack) exist \
         only for a rack-scale node model (one with `rack_scale`). Use `{su}`/`{slot}`/`{node}` for \
         other models, or pick a rack-scale model.";
    DUPLICATE_NAME = "RY0301", "duplicate device name",
        "Two devices got the same name. Naming patterns must contain every placeholder that tells \
         devices of that role apart (`{su}`, `{leaf}` or `{rail}`, `{plane}`, `{index}`, `{group}`).";
    BAD_NAME = "RY0302", "name contains unsafe characters",
        "Device and cluster names become file names and shell arguments, so they may hold only \
         letters, digits, `-`, `_` and `.` (no path separators, spaces or shell metacharacters).";
    BAD_PATTERN = "RY0303", "invalid naming pattern",
        "A naming pattern uses a placeholder that does not exist for that role, or has an unclosed `{`. \
         Placeholders: `{cluster}`, `{su}`, `{plane}`, `{rail}`, `{leaf}`, `{group}`, `{index}`, `{node}`; \
         `{su:02}` pads with zeros.";
    LABEL_TOO_LONG = "RY0304", "cable label too long",
        "Cable labels must stay under 100 characters (NetBox limit, and what fits on a label). Shorten \
         the naming patterns or the rack names.";
    OOB_SHORTAGE = "RY0401", "OOB port shortage",
        "The declared out-of-band switches have fewer access ports than the management and BMC ports \
         that must reach them. Remove `oob.switches_per_su` to size automatically, or raise it.";
    ACCESS_RADIX = "RY0402", "storage or in-band switch radix exceeded",
        "A storage or in-band leaf cannot carry even one node's ports plus uplinks at the declared ratio.";
    MISSING_PORTS = "RY0403", "node model lacks the ports for this network",
        "A storage or in-band network is configured but the node model has no ports for it.";
    OOB_GATEWAY_PORTS = "RY0410", "OOB gateway has too few ports",
        "Every OOB switch uplinks to the OOB gateway (the router holding every management subnet's \
         gateway address), one port each at `oob.uplink_speed`. The gateway model has fewer such \
         ports than there are OOB switches. Declare a larger `oob.gateway.model` (at very large \
         sizes a modular chassis) in the spec's catalog if needed.";
    OOB_VLANS = "RY0411", "management VLANs exhausted",
        "Each management subnet is one VLAN on the OOB switches: central roles take VLANs 101-115, \
         SU s takes VLAN 1000 + s. More than 3,094 SUs leave no valid VLAN id (2-4094).";
    UNUSED_PORTS = "RY0501", "unused switch ports",
        "Some switch ports carry no cable. That is often deliberate (room to grow), so this is \
         advisory (severity `info`: shown, never failing, not even under `--strict`; `--deny \
         RY0501` makes it fail); the message says how many ports of which role are free.";
    BAD_POOL = "RY0601", "invalid address pool",
        "An address pool is not a prefix in CIDR form (`10.0.0.0/16`), has host bits set, is the wrong \
         address family for its key, or a management subnet length does not fit the pool.";
    POOLS_OVERLAP = "RY0602", "address pools overlap",
        "Two pools share addresses, so two interfaces could get the same address. Every pool (loopbacks, \
         fabric links, VTEPs, GPU, storage, in-band, OOB) must be disjoint.";
    POOL_TOO_SMALL = "RY0603", "address pool too small",
        "A pool cannot hold every block the fabric needs. Blocks are placed by identity (SU, leaf, \
         port), so the pool must cover the highest identity, not just the count. The message says \
         how many addresses are needed and the smallest prefix that fits.";
    ASN_EXHAUSTED = "RY0604", "ASN range exhausted",
        "The chosen private ASN range cannot give every leaf, spine group and core tier its own ASN. \
         Use `bgp.asn_scheme: private-4byte` (RFC 6996, 94 million ASNs) or `bgp.reuse_leaf_asns: true` \
         (RFC 7938 §5.2.2).";
    ASN_COLLISION = "RY0605", "external peer ASN collides with the fabric",
        "An external BGP peer uses an ASN that railyard gives to a fabric switch (or one outside the \
         valid range). eBGP loop prevention would drop the routes. Pick another ASN for the peer.";
    BAD_QOS = "RY0606", "invalid RoCE QoS value",
        "A RoCE QoS value is out of range (DSCP 0-63, priority 0-7, probability 1-100, weight 1-99), \
         RoCE and CNP share a DSCP or priority, the ECN minimum is not below the maximum, or the MTU is \
         outside 1500-9216.";
    UNKNOWN_OVERRIDE = "RY0607", "override names an unknown device or holds a bad value",
        "An entry under `overrides:` names no switch of the fabric, or its value is unusable (an ASN \
         outside 1–4294967294, a loopback that is not an IPv4 /32). Device names are as in the \
         cabling plan.";
    BAD_BGP_OPTION = "RY0610", "invalid BGP hardening option",
        "`bgp.auth_env` must name an environment variable (`[A-Z_][A-Z0-9_]*`, e.g. \
         `BGP_FABRIC_PASSWORD`), never hold the password: configs carry `${NAME}` and `railyard \
         push` fills in the value from the environment. `bgp.max_prefix.margin_percent` runs from \
         0 to 1000, `restart_minutes` from 1 to 65535.";
    BGP_OPTION_NOT_RENDERED = "RY0611", "BGP option not rendered for this platform (retired)",
        "Retired, never reported: it warned that a two-sided BGP option (TCP-MD5 `bgp.auth_env`, \
         GTSM `bgp.gtsm`) was not rendered for some platform. Every platform (NVUE, EOS, SONiC, \
         FRR) renders both now. The code stays reserved so it is never reused.";
    BGP_SESSION_MISMATCH = "RY0701", "BGP session ends disagree",
        "The two ends of a planned BGP session do not agree on the peer's ASN, address or interface; \
         the session would not come up. Caused by an `overrides:` entry it is a warning (the configs \
         are still written, e.g. to prove a lab catches it); otherwise an error (a railyard bug).";
    MTU_MISMATCH = "RY0702", "MTU differs across a link or is too small",
        "Both ends of a link must use the same MTU, and a fabric that carries VXLAN needs at least \
         50 bytes above the host MTU.";
    ROUTER_ID_DUPLICATE = "RY0703", "duplicate router-id",
        "Two switches got the same BGP router-id; BGP drops sessions between them and confuses \
         troubleshooting. Check the loopback pool and overrides.";
    QOS_MISMATCH = "RY0704", "QoS differs across a fabric link",
        "The two ends of a fabric link do not run the same RoCE class (trust, DSCP, priority, PFC): \
         RoCE would lose its lossless class on one hop.";
    AR_UNSUPPORTED = "RY0705", "adaptive routing unsupported here",
        "`roce.adaptive_routing: enabled` was asked for switches whose ASIC, OS or port speed cannot \
         run it (NVUE reference, Adaptive Routing: Spectrum-4 with Cumulus NVUE, 200G and 400G routed ports). Those switches \
         are rendered without it.";
    NIC_SWITCH_QOS_MISMATCH = "RY0706", "NIC and switch QoS disagree",
        "The GPU nodes' NICs (`hosts.nic_*`) would mark or treat RoCE differently from the leaves they \
         are cabled to: another DSCP, another priority, PFC on other priorities, or an MTU above the \
         switch port's. RoCE would then land in a lossy class or be dropped. Make the NIC values equal \
         the fabric's `roce` settings (or change `roce` so the switches follow the NICs).";
    AR_MIXED_FABRIC = "RY0707", "adaptive routing on only part of the compute fabric",
        "Adaptive routing is on (`roce.adaptive_routing: auto` or `enabled`) and some switches of \
         the compute fabric run it, but others that forward the same flows cannot: their OS has \
         none (railyard configures it with NVUE only), or their ASIC or link speed does not run it \
         (Spectrum-4 at 200G or 400G). Adaptive routing is a per-switch, per-egress-port \
         decision (NVUE reference, Adaptive Routing: `interface <swp> router adaptive-routing`); a \
         switch without it hashes each flow onto one next hop (Cumulus Linux, Equal Cost \
         Multipath Load Sharing), so flows the design means to spread are pinned on those \
         switches' ports, typically the leaf uplinks where spreading matters most. Run NVUE on \
         Spectrum-4 switches for the named roles (`platforms: {leaf: nvue}`), or set \
         `roce.adaptive_routing: disabled` to make a hash-only design explicit.";
    PREFIX_OTHER_VRF = "RY0710", "a VRF's policy names another VRF's subnet",
        "A prefix list, route map or aggregate of one VRF matches the subnet of a port that lives in \
         another VRF (e.g. the default VRF still announcing a host block whose ports moved into a \
         tenant VRF). It would announce, or attract, traffic the VRF does not own. Each VRF \
         announces exactly the host links of its own ports; this finding is a railyard bug.";
    TENANT_NAME = "RY0801", "tenant name cannot be a VRF name",
        "Tenant and shared-service names become VRF names: letters, digits, `-` and `_`, at most 15 \
         characters (the Linux interface-name limit).";
    TENANT_DUPLICATE = "RY0802", "tenant name or id used twice",
        "Every tenant and shared service needs its own name and its own `id` (1–4000). The id is the \
         tenant's stable identity: VNI, VLAN and PKey are offsets from it, so never reuse or change it.";
    TENANT_SELECTION = "RY0803", "tenant node selection invalid",
        "`nodes` takes exactly one of `sus`, `range`, `names`, `gpus`; SUs, node numbers and names must \
         exist; a GPU count must be a whole number of nodes and fit in the free nodes.";
    TENANT_OVERLAP = "RY0804", "node in two tenants",
        "A node (and so its ports) belongs to at most one tenant. Two selections claim the same node.";
    TENANT_COLLISION = "RY0805", "tenant VNI, VLAN, RT or PKey shared",
        "Two tenants (or a tenant and a shared service) got the same VNI, VLAN, route target or \
         partition key, usually through explicit values. Their traffic would mix.";
    TENANT_LEAK = "RY0806", "route targets leak between tenants",
        "A tenant imports a route target another tenant exports, or names a shared service that is \
         not declared. Only declared shared services may join tenants.";
    TENANT_RANGE = "RY0807", "tenant values out of range",
        "A VNI (1–16777215), VLAN (2–4094) or partition key (below 0x7fff) derived from a base and the \
         tenant ids does not fit. The message says how many values are needed.";
    TENANT_PORT_VRF = "RY0808", "tenant port outside its VRF",
        "The isolation proof found a tenant's port in another VRF (or a VRF on a leaf without its \
         tenant's ports). This is a railyard bug; please report it with the spec.";
    SHARED_SERVICE_UNHOSTED = "RY0809", "shared service not reachable yet",
        "A declared shared service is imported by its tenants' VRFs, but railyard does not yet place \
         the service itself: no VRF exports its route target and its `prefixes` reach no config, so \
         no tenant can reach it through the fabric. The warning stays until the service's own \
         endpoints (its storage systems or servers) are part of the spec; until then, reach the \
         service outside the tenant VRFs, or leave it out of `shared_services:`.";
    PARTITIONS_TEMPLATE = "RY0900", "InfiniBand partitions written as a template",
        "The compute fabric is InfiniBand and has tenants, but no port GUIDs were supplied, so the \
         OpenSM partitions are written as `tenants/partitions.conf.template` with `@node:port@` \
         placeholders that OpenSM refuses. Capture the fabric with `ibnetdiscover` (or `ibstat` per \
         node), import it with `railyard ib import`, and build with `--port-guids`. Advisory \
         (severity `info`): before the fabric is installed there are no GUIDs to give.";
    NODES_WITHOUT_PARTITION = "RY0901", "GPU nodes in no InfiniBand partition",
        "With tenants on InfiniBand the default partition is limited for every node, so limited \
         members cannot talk to each other there. A node in no tenant therefore has no InfiniBand \
         peer at all. Put it in a tenant (one for the free pool, if need be).";
    PCIE_UNVERIFIED = "RY0902", "node model PCIe topology unverified",
        "The node model's PCIe layout (GPU and NIC bus ids, pairing, NUMA) is not marked \
         `verified`: NCCL matches GPUs by bus id, so an invented layout would give every node a wrong \
         GPU-NIC affinity. `nccl-topo.xml` is still written for review, but `NCCL_TOPO_FILE` is left \
         out of nccl.env. To install it, declare the node model in the spec's `catalog: nodes:` with \
         the `pcie:` layout read from one real node (`nvidia-smi topo -m`, `lspci -tv`, \
         `ibdev2netdev -v`), `verified: true`, and `source:` naming those captures.";
    CAPTURE_SYNTAX = "RY0903", "capture cannot be read",
        "A file given to `railyard ib import` (or `build --port-guids`) is not the output of the \
         command it should come from, or it is cut short (a record without its ports, a line \
         without its GUID). The location points at the first line that could not be read. Capture \
         again with the command named in the help line, unmodified.";
    CAPTURE_NOT_IN_PLAN = "RY0904", "captured port not in the plan",
        "A captured InfiniBand port belongs to a host or HCA the cabling plan does not have, or is \
         cabled to another switch than the plan says. Partitions built from it would name the wrong \
         ports. Fix the cabling or the spec, or capture the right fabric.";
    CAPTURE_CONFLICT = "RY0905", "captured GUIDs contradict each other",
        "One port has two GUIDs, or one GUID appears on two ports, across the imported captures. \
         Import captures of one state of the fabric.";
    NO_RDMA_DEVICE = "RY0910", "acceptance tests on ports without an RDMA device",
        "The node model names no RDMA device (`rdma:` of a compute NIC, or the `rdma:` list of its \
         `pcie:` layout) for some compute ports, so the acceptance plan cannot tell `ib_write_bw` \
         which HCA to test (`-d`). Without `-d` perftest takes the first HCA it finds, which is \
         one port for every test of the node, not the cable the test is meant to cross: good \
         cables would be blamed and bad ones passed. The runners carry the placeholder \
         `-d RAILYARD-NO-RDMA-DEVICE` on those tests and refuse to run them, saying why; \
         `acceptance check` then reports them as not run. Declare the RDMA name of each compute \
         NIC (what `ibdev2netdev` prints on one node, e.g. `mlx5_0`) under the spec's \
         `catalog: nodes:` and plan again.";
    NEUTRAL_PORT_NAMES = "RY0911", "node ports named by a neutral scheme",
        "The node model's port names (`nic0`, `nic1`, …) are a scheme of the catalog's own, not \
         the labels on the chassis nor the names the operating system gives the interfaces: the \
         vendor's slot numbering was not found in a source. A technician cannot find `nic3` on \
         the machine, and LLDP from the host reports the OS name. `cabling verify` reads the OS \
         names where the model's `netdev` or PCIe layout gives them (derived from bus ids: check \
         them on one node). Declare the model under `catalog: nodes:` with the chassis port \
         labels, or its `netdev` names from `ip link` on one node, and drop `port_names: \
         neutral`.";
    LINK_SIGNAL = "RY1001", "a link's two ends cannot run the same lanes",
        "Both ends of a link must run the same number of electrical lanes at the same lane rate and \
         modulation (NVIDIA LinkX, Key Technologies: a 100G port is 1 x 100G-PAM4, 2 x 50G-PAM4 or \
         4 x 25G-NRZ, and 50G-PAM4 optics cannot link to 100G-PAM4 ones). A switch port's lanes \
         come from its cage and breakout (a 2x100G split of a 4-lane QSFP56 cage gives each port 2 \
         lanes, so 2 x 50G-PAM4); a NIC's from its cage and the rates it runs (a QSFP28 NIC runs \
         25G-NRZ only). Run the switch cage in a mode whose lanes the NIC can run (unsplit at \
         100G = 4 x 25G-NRZ), or choose a NIC or switch model that runs the other end's rate.";
    LINK_NO_PART = "RY1002", "no catalog part builds this link",
        "No transceiver, cable or fibre in the catalog fits both cages (form, finned or flat top, \
         lanes, lane rate, where the module may go, the switch vendor's optics), mates at both ends \
         (APC never meets UPC; SR4 meets SR4) and reaches the link's routed length at a length the \
         part is sold in. The message names the first rule no part met. Add the part under the \
         spec's `catalog: {modules, assemblies, fibres}` with its source, change the \
         `physical:` policy, or move the devices closer (`racks:`).";
    LINK_TOO_LONG = "RY1003", "a link is longer than any part reaches",
        "The routed length of a link (rack positions, row pitch, slack) is longer than the reach of \
         every module and fibre that fits its cages (NVIDIA LinkX: SR4 50 m on OM4, DR4 100 m, \
         2xDR4 500 m switch to switch, 2xFR4 2 km; reaches include two patch panels). Place the \
         devices closer or add a longer-reach part to the catalog.";
    PHYSICAL_POLICY = "RY1004", "invalid physical-layer policy",
        "A value under `physical:` is out of range: lengths must be positive and finite, spares \
         between 0 and 100 percent.";
    THIRD_PARTY_OPTICS = "RY1005", "third-party optics in a switch that keeps them down",
        "Arista EOS brings up only Arista-qualified transceivers unless the switch is told to accept \
         others (`service unsupported-transceiver`, with a licence key from Arista): the catalog \
         carries no Arista optics with a citable public source, so railyard planned NVIDIA modules \
         in Arista cages. Order Arista optics of the same standard (add them under `catalog: \
         {modules}` and set `optics_vendor: Arista` on the switch model), or plan the unlock.";
    TOO_MANY_PATCH_PANELS = "RY1006", "more patch panels than an optical link allows",
        "`physical.patch_panels` declares how many patch panels every cable of a tier passes. \
         NVIDIA states the maximum reach of its transceivers assuming \"two optical connector \
         junctions or patch panels in the link, a total of 4 ferule-to ferule connections\" (NVIDIA \
         cabling requirements for NDR/400G Ethernet); every further panel adds connector loss no \
         reach allows for, and copper cannot pass a panel at all, so a tier with panels is optical. \
         Declare 0, 1 or 2 panels per tier.";
    THIRD_PARTY_PART_REFUSED = "RY1007", "a part resting on a third-party listing under `physical.parts: vendor-only`",
        "Every catalog part says what its number rests on (`source_kind`): the vendor's page, the \
         vendor's text on another host, a third-party listing, or a standard. Under `physical.parts: \
         vendor-only` the plan may not order a part whose number only a third-party listing gives \
         (a seller's or an inventory's table): confirm the number with the vendor and declare the \
         part under `catalog:` with that source, or drop `vendor-only` (the BOM then marks the \
         line \"confirm with the vendor before ordering\").";
    LANE_GENERATION = "RY1008", "a switch model declared in the wrong lane generation",
        "NVIDIA's XDR parts are \"four-channel 200G-PAM4\" and \"cannot downshift to 100G-PAM4 or \
         50G-PAM4\" (LinkX 800g200gpam4list). A Quantum-X800 switch (Q3400, Q3200) runs 200G-PAM4 \
         lanes in 1.6T twin-port OSFP cages; a spec that declares it with 800G cages of 100G lanes \
         would order NDR-generation optics that cannot link to XDR ones. Use the built-in model, \
         or declare its port groups with `lane_rates: [200G-PAM4]`.";
    IDENTITY_SYNTAX = "RY1101", "device identity file cannot be read",
        "The device identity file (`railyard build --identities FILE`, docs/day-zero.md) is a CSV \
         with a header naming the device column (`name`, `device` or `hostname`) and at least one \
         of `mac_address` (or `mac`) and `serial` (or `serial_number`): the columns of a NetBox or \
         Nautobot device export. A MAC is six hex pairs (`1c:34:da:01:02:03`, `-` or Cisco's \
         `1c34.da01.0203` accepted), unicast and not all zero; a serial is 1 to 64 letters, digits, \
         `- _ . /`. Any other byte (a line break, a quote, a shell metacharacter) is refused here, \
         because these values reach DHCP reservations and provisioning files. Fix the cell the \
         message points at.";
    IDENTITY_UNKNOWN_DEVICE = "RY1102", "identity for a device the plan does not have",
        "A row of the identity file names a device that is not a switch of the compiled plan \
         (names are the plan's, as in `addresses.csv`). A typo, or an inventory of another \
         cluster: correct the name or remove the row.";
    IDENTITY_DUPLICATE = "RY1103", "a device, MAC or serial appears twice in the identity file",
        "Each device has one row, and a MAC address or serial number belongs to one device: two \
         DHCP reservations with the same MAC or client id would hand one switch another's address \
         (Kea refuses such a configuration, railyard refuses it first). The message names the \
         first row; keep the right one.";
    PROVISIONING_URL = "RY1104", "the provisioning URL is not one railyard writes into DHCP options",
        "`railyard build --provisioning-url URL` names where the operator serves the build's \
         `dayzero/ztp/` tree; every switch's DHCP reservation points at a file under it (option \
         239 for Cumulus Linux, option 67 for SONiC and EOS), and the ZTP scripts fetch from it. \
         It is `http://` or `https://`, a host (DNS name, IPv4 address or `[IPv6]`), an optional \
         port from 1 to 65535 and a path of letters, digits and `- . _ ~ /`. No user or password \
         (every client on the segment can read a DHCP option), no query or fragment, no escapes. \
         Fix the part the message points at.";
    DHCP_UNRESERVABLE = "RY1105", "a switch of the identity file cannot be given a DHCP reservation",
        "A reservation hands a switch its planned management address; it needs that address (a \
         switch the plan gives a management port and subnet) and an identifier the switch's DHCP \
         client sends: the MAC address of its management port, or, on Cumulus Linux 5.10 and \
         later only, its serial number (sent as client id `00:` and the serial's bytes). Give the \
         row a `mac_address`, or remove it for a switch that is not provisioned by DHCP.";
    DHCP_DUPLICATE_RESERVATION = "RY1106", "two DHCP reservations would share an address or an identifier",
        "Two switches would be reserved the same address, or by the same MAC or client id: one of \
         them would boot with the other's address and configuration. Kea refuses such a \
         configuration when it loads; railyard refuses it before writing it. Correct the \
         identity file (the message names the other switch).";
    DIFF_CANNOT_COMPARE = "RY1201", "the two sides of a diff cannot be compared",
        "`railyard diff OLD NEW` exits 3 when a side is not a design it can read: a spec with \
         errors (they are listed too), a path that is neither a spec nor a build directory, a build \
         directory whose files do not match its manifest.json, or a side that does not exist \
         (a spec added or deleted in a pull request: pass `--missing-is-empty` to plan it as \
         created or deleted). A CI gate should treat exit 3 as a failed check, not a safe change.";
    DIFF_DIFFERENT_RAILYARDS = "RY1202", "the two sides of a diff were made by different railyards",
        "A build directory's manifest.json records the railyard that wrote it (release and \
         commit; a spec compared is rendered by the railyard running). When the two sides of \
         `railyard diff` come from different ones, a difference may be railyard's own (a template \
         or a default that changed between releases), not the design's. Build both sides with \
         the same railyard to see the design's change alone. Manifests written before the commit \
         was recorded are compared by release only.";
}
