#!/usr/bin/env python3
"""Write the seed inputs of every fuzz target into fuzz/seeds/<target>/ (not committed).

Seeds come from the repository itself: the example inventories, the pinned bad specs of
tests/diagnostics, the built-in catalog, the LLDP captures and NETCONF exchanges quoted in the
tests, and rendered OpenConfig payloads when an output directory is given. `cargo fuzz cmin`
then reduces seeds plus what fuzzing found to the corpora committed under fuzz/corpus/
(see fuzz/README.md).

usage: python3 fuzz/seeds.py [RENDERED_OUTPUT_DIR]
"""

import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "fuzz" / "seeds"
NS = "urn:ietf:params:xml:ns:netconf:base:1.0"


def put(target, name, data):
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (d / name).write_bytes(data)


def raw_strings(path):
    """The r#"..."# literals of a Rust source file."""
    return re.findall(r'r#"(.*?)"#', path.read_text(), re.S)


def eom(msg):
    return msg.encode() + b"]]>]]>"


def chunked(msg, size=7):
    b = msg.encode()
    out = b""
    for i in range(0, len(b), size):
        part = b[i : i + size]
        out += b"\n#%d\n" % len(part) + part
    return out + b"\n##\n"


def spec_seeds():
    for p in sorted((ROOT / "inventories").glob("*.yaml")):
        put("spec", "inv-" + p.name, p.read_bytes())
    for p in sorted((ROOT / "tests" / "diagnostics").glob("*.yaml")):
        put("spec", "diag-" + p.name, p.read_bytes())


def catalog_body(text):
    """The lines under a top-level `catalog:` key, unindented by two spaces."""
    lines = text.splitlines()
    out, inside = [], False
    for line in lines:
        if line.startswith("catalog:"):
            inside = True
            continue
        if inside and line and not line.startswith((" ", "#")):
            break
        if inside:
            out.append(line[2:] if line.startswith("  ") else line)
    return "\n".join(out) + "\n"


def bounds_seeds():
    """The committed `bounds-*` catalog bodies (numbers at their bound and past it, issue 38),
    kept as seeds so `cargo fuzz cmin` keeps them."""
    for p in sorted((ROOT / "fuzz" / "corpus" / "spec_catalog").glob("bounds-*")):
        put("spec_catalog", p.name, p.read_bytes())


def catalog_seeds():
    for p in sorted((ROOT / "catalog").glob("*.yaml")):
        put("spec_catalog", "builtin-" + p.name, p.read_bytes())
    for p in sorted(list((ROOT / "inventories").glob("*.yaml")) + list((ROOT / "tests" / "diagnostics").glob("*.yaml"))):
        text = p.read_text()
        if re.search(r"^catalog:", text, re.M):
            put("spec_catalog", p.parent.name + "-" + p.name, catalog_body(text))


HELLO = (
    f'<hello xmlns="{NS}"><capabilities>'
    "<capability>urn:ietf:params:netconf:base:1.0</capability>"
    "<capability>urn:ietf:params:netconf:base:1.1</capability>"
    "<capability>urn:ietf:params:netconf:capability:candidate:1.0</capability>"
    "<capability>urn:ietf:params:netconf:capability:confirmed-commit:1.1</capability>"
    "<capability>urn:ietf:params:netconf:capability:validate:1.1</capability>"
    "<capability>urn:ietf:params:netconf:capability:rollback-on-error:1.0</capability>"
    "</capabilities><session-id>4</session-id></hello>"
)
DATA = (
    '<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces" '
    'xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">'
    "<interface><name>swp1</name><type>ianaift:ethernetCsmacd</type><mtu>9216</mtu></interface>"
    "<interface><name>swp2</name><enabled>false</enabled></interface></interfaces>"
)


def reply(i, body):
    return f'<rpc-reply xmlns="{NS}" message-id="{i}">{body}</rpc-reply>'


def error(tag, severity="error", info=""):
    return (
        f"<rpc-error><error-type>protocol</error-type><error-tag>{tag}</error-tag>"
        f"<error-severity>{severity}</error-severity>"
        f'<error-message xml:lang="en">{tag} here</error-message>'
        f"<error-info>{info}</error-info></rpc-error>"
    )


def session(replies, base11=True):
    frame = chunked if base11 else eom
    return eom(HELLO) + b"".join(frame(r) for r in replies)


def netconf_seeds(rendered):
    ok = "<ok/>"
    full = [
        reply(1, f"<data>{DATA}</data>"),
        reply(2, error("lock-denied", info="<session-id>17</session-id>")),
        reply(3, ok),
        reply(4, error("partial-operation", severity="warning") + ok),
        reply(5, ok),
        reply(6, ok),
        reply(7, f"<data>{DATA}</data>"),
        reply(8, ok),
        reply(9, ok),
        reply(10, ok),
        reply(11, ok),
        reply(12, ok),
    ]
    put("netconf_reply", "session-chunked", b"\x03" + session(full))
    put("netconf_reply", "session-eom", b"\x01" + session(full, base11=False))
    notif = '<notification xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0"><eventTime>2024-01-01T00:00:00Z</eventTime></notification>'
    put("netconf_reply", "session-notification", b"\x07" + session([notif] + full[:3]))
    put("netconf_reply", "session-wrong-id", b"\x03" + session([reply(99, ok)]))
    put(
        "netconf_reply",
        "session-no-id-error",
        b"\x03" + session([f'<rpc-reply xmlns="{NS}">{error("malformed-message")}</rpc-reply>']),
    )
    put("netconf_reply", "session-truncated", b"\x03" + session(full)[:400])
    put("netconf_reply", "session-not-reply", b"\x03" + session([f'<hello xmlns="{NS}"/>']))

    docs = [HELLO, DATA] + [r for r in full]
    docs += [s for s in raw_strings(ROOT / "src/push/netconf/client.rs") if "<" in s]
    docs += [s for s in raw_strings(ROOT / "src/push/netconf/xml.rs") if "<" in s]
    docs += [s for s in raw_strings(ROOT / "src/push/netconf/canon.rs") if "<" in s]
    docs += [
        f'<config xmlns="{NS}">{DATA}</config>',
        f"<config>{DATA}</config>",
        f'<nc:config xmlns:nc="{NS}"><a xmlns="urn:a" a:x="1" xmlns:a="urn:b">t&amp;&#65;<![CDATA[<c>]]></a></nc:config>',
        '<?xml version="1.0" encoding="UTF-8"?>\n<!-- c --><a xml:lang="en"><?pi x?><b/></a>',
    ]
    if rendered:
        for i, p in enumerate(sorted(pathlib.Path(rendered).glob("configs/*/openconfig.xml"))[:6]):
            docs.append(p.read_text())
    for i, d in enumerate(docs):
        put("netconf_reply", f"doc-{i:02}", b"\x00" + d.encode())

    for i, (flags, stream) in enumerate(
        [
            (0, eom(HELLO) + eom(full[0])),
            (2, session(full[:4])),
            (1, chunked(full[0], 3) + chunked(full[2], 64)),
            (3, eom(HELLO) + b"\n" + chunked(full[1])),
            (1, b"\n#4294967295\nabc"),
            (1, b"\n#01\nx\n##\n"),
            (1, b"\n##\n"),
            (1, b"  \n#2\nab\n##\n\n#1\nc\n##\n"),
            (0, b"a]]>]]]>]]>b]]>]]>"),
        ]
    ):
        for limit in (0, 4):
            put("netconf_framing", f"stream-{i:02}-{limit}", bytes([flags, 0x5A, limit]) + stream)


def lldp_seeds():
    src = ROOT / "tests" / "cabling_verify.rs"
    for i, s in enumerate(raw_strings(src)):
        if s.lstrip().startswith("{"):
            put("lldp", f"tests-{i:02}.json", s)
    chassis = {
        "local-chassis": [
            {"chassis": [{"id": [{"type": "mac", "value": "3a:c0:51:96:91:6f"}], "name": [{"value": "leaf-su01-01"}]}]}
        ]
    }
    neigh = {
        "lldp": [
            {
                "interface": [
                    {
                        "name": "swp31",
                        "via": "LLDP",
                        "chassis": [{"id": [{"type": "mac", "value": "fa:58:5e:19:14:b8"}], "name": [{"value": "spine01"}]}],
                        "port": [{"id": [{"type": "ifname", "value": "swp1"}], "descr": [{"value": "swp1"}]}],
                    },
                    {
                        "name": "swp1",
                        "chassis": [{"id": [{"type": "mac", "value": "aa:bb:cc:dd:ee:ff"}]}],
                        "port": [{"id": [{"type": "mac", "value": "aa:bb:cc:dd:ee:01"}], "descr": [{"value": "ens1f0"}]}],
                    },
                ]
            }
        ]
    }
    put("lldp", "chassis-and-neighbours.json", json.dumps(chassis) + "\n" + json.dumps(neigh, indent=1))
    put("lldp", "system-hostname.json", '{"hostname": "leaf-su01-02"}\n{"swp1": {"type": "swp", "lldp": {"neighbor": {"spine02": {"port": {"name": "swp2", "type": "ifname"}}}}}}')
    put("lldp", "empty-json0.json", '{"lldp":[{}]}')
    put("lldp", "empty-json.json", '{"lldp":{}}')


def targets_seeds():
    put(
        "push_targets",
        "doc-example.yaml",
        "known_hosts: /etc/railyard/known_hosts\n"
        "auth: { agent: true, key_file: ~/.ssh/id_ed25519, password_env: RAILYARD_PASSWORD }\n"
        "defaults: { user: admin, port: 830, driver: netconf }\n"
        "devices:\n  spine1: { address: 10.0.0.1, role: spine }\n"
        "  leaf1:  { address: 10.0.0.11, role: leaf, driver: frr-ssh, port: 22 }\n",
    )
    put(
        "push_targets",
        "all-drivers.yaml",
        "known_hosts: kh\nauth: {agent: false, key_file: id, key_passphrase_env: PP, agent_socket: s}\n"
        "defaults: {user: root}\ndevices:\n"
        "  a: {address: 127.0.0.1, driver: nvue-ssh, tool: nv, state_dir: .ry}\n"
        "  b: {address: '::1', driver: eos-ssh, file: startup-config}\n"
        "  c: {address: h, driver: sonic-ssh, known_hosts: ~/kh}\n"
        "  d:\n    address: 127.0.0.1\n    driver: frr-ssh\n"
        "    frr: {vty_socket: /run/frr, state_dir: /var/lib/ry, reload: /usr/lib/frr/frr-reload.py}\n",
    )
    put("push_targets", "secret.yaml", "devices:\n  s1: {address: x, user: u, password: hunter2-secret}\n")
    put("push_targets", "bad-file.yaml", "defaults: {user: u}\ndevices:\n  s1: {address: x, file: ../../etc/passwd}\n")
    put("push_targets", "bad-name.yaml", "defaults: {user: u}\ndevices:\n  .hidden: {address: x}\n")


def journal_seeds():
    lines = [
        {"ts_ms": 1, "tx": "ry-fuzz", "event": "begin", "devices": ["leaf1", "spine1"]},
        {"ts_ms": 2, "tx": "ry-fuzz", "event": "state", "device": "leaf1", "state": "ready",
         "pre_hash": "p", "pre_copy": "a" * 64, "new_copy": "b" * 64, "driver": "netconf", "wave": 0},
        {"ts_ms": 3, "tx": "ry-fuzz", "event": "state", "device": "leaf1", "state": "committed", "revision": "ry-fuzz-leaf1"},
        {"ts_ms": 4, "tx": "ry-fuzz", "event": "state", "device": "spine1", "state": "confirmed", "pre_copy": "c" * 64},
        {"ts_ms": 5, "tx": "ry-fuzz", "event": "state", "device": "leaf1", "state": "committed", "error": "differs"},
        {"ts_ms": 6, "tx": "ry-fuzz", "event": "end", "exit_code": 3},
    ]
    text = "".join(json.dumps(l) + "\n" for l in lines)
    put("push_journal", "stored", b"\x00" + text.encode())
    put("push_journal", "stored-torn", b"\x00" + text.encode() + b'{"ts_ms": 7, "ev')
    put("push_journal", "written", b"\x01leaf1\tready\nspine1\tcommitted\nleaf1\tconfirmed\n")
    put("push_journal", "written-odd-names", b"\xc1\t\n\"q\"\\n\tfailed\n\xe2\x82\xac\tunknown\n")


def main():
    rendered = sys.argv[1] if len(sys.argv) > 1 else None
    spec_seeds()
    catalog_seeds()
    bounds_seeds()
    netconf_seeds(rendered)
    lldp_seeds()
    targets_seeds()
    journal_seeds()
    for d in sorted(OUT.iterdir()):
        print(f"{d.name}: {len(list(d.iterdir()))} seeds")


if __name__ == "__main__":
    main()
